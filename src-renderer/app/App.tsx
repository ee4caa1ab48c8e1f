import { useEffect, useRef, useState } from 'react';
import { ComposeView } from '../views/compose/ComposeView';
import { ConfigureView } from '../views/configure/ConfigureView';
import { ConnectionBadge } from './ConnectionBadge';
import { DeliveryDetailPanel } from '../views/deliveries/DeliveryDetailPanel';
import { DeliveryList } from '../views/deliveries/DeliveryList';
import { InboundView } from '../views/inbound/InboundView';
import { AudiencesView } from '../views/audiences/AudiencesView';
import { DeletionsView } from '../views/deletions/DeletionsView';
import { ReceiversView } from '../views/receivers/ReceiversView';
import { BannerArea } from './BannerArea';
import { ShortcutsHelp } from './ShortcutsHelp';
import { SplitHandle, useDetailWidth } from './SplitHandle';
import { useDeliveries } from './view-stores';
import { CompareDialog } from '../views/deliveries/compare/CompareDialog';
import { ViewStoresContext, type ViewStores } from './view-stores';

export const VIEWS = [
  { id: 'deliveries', label: 'Deliveries' },
  { id: 'inbound', label: 'Inbound' },
  { id: 'compose', label: 'Compose' },
  { id: 'audiences', label: 'Audiences' },
  { id: 'deletions', label: 'Deletions' },
  { id: 'receivers', label: 'Receivers' },
  { id: 'configure', label: 'Configure' },
] as const;
export type ViewId = (typeof VIEWS)[number]['id'];

/** The view named in the address (#/compose), so a reload or a shared link keeps it. */
function viewFromHash(hash: string): ViewId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return VIEWS.find((v) => v.id === id)?.id ?? 'deliveries';
}

export function useView(): [ViewId, (view: ViewId) => void] {
  const [view, setView] = useState<ViewId>(() => viewFromHash(location.hash));
  useEffect(() => {
    const onHash = (): void => setView(viewFromHash(location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return [view, (next) => (location.hash = `#/${next}`)];
}

export function App({ stores }: { stores: ViewStores }) {
  const [view, go] = useView();
  const tabs = useRef<HTMLElement>(null);
  // In a narrow window the tabs scroll sideways: the view shown (a link, a shortcut) is kept in sight.
  useEffect(() => {
    tabs.current?.querySelector('[aria-current="page"]')?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [view]);
  // Deliveries follows the log from every view; its counts only while it is shown.
  useEffect(() => {
    stores.deliveries.store.getState().setShown(view === 'deliveries');
  }, [stores, view]);
  return (
    <ViewStoresContext.Provider value={stores}>
        <div className="app">
          <header className="topbar">
            <h1>Hookbench</h1>
            <nav className="tabs" aria-label="Views" ref={tabs}>
              {VIEWS.map((v) => (
                <a
                  key={v.id}
                  href={`#/${v.id}`}
                  className={v.id === view ? 'tab active' : 'tab'}
                  aria-current={v.id === view ? 'page' : undefined}
                  data-testid={`nav-${v.id}`}
                  onClick={(e) => {
                    e.preventDefault();
                    go(v.id);
                  }}
                >
                  {v.label}
                </a>
              ))}
            </nav>
            <ConnectionBadge />
          </header>
          <BannerArea view={view} />
          {view === 'deliveries' && <DeliveriesPanes />}
          {view === 'inbound' && <InboundView />}
          {view === 'compose' && <ComposeView />}
          {view === 'audiences' && <AudiencesView />}
          {view === 'deletions' && <DeletionsView />}
          {view === 'receivers' && <ReceiversView />}
          {view === 'configure' && <ConfigureView />}
          <ShortcutsHelp />
        </div>
    </ViewStoresContext.Provider>
  );
}

/** The list and, when a delivery is open, the detail beside it, split by a handle that resizes them. */
function DeliveriesPanes() {
  const panes = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useDetailWidth(panes);
  const open = useDeliveries((s) => s.selectedId !== null);
  return (
    <div className="panes" data-testid="deliveries-view" ref={panes} style={{ ['--detail-width' as string]: `${width}px` }}>
      <DeliveryList />
      {open && <SplitHandle width={width} onWidth={setWidth} panes={panes} />}
      <DeliveryDetailPanel />
      <CompareDialog />
    </div>
  );
}

export function NoTransport({ problem }: { problem: string }) {
  return (
    <div className="app">
      <header className="topbar">
        <h1>Hookbench</h1>
      </header>
      <p className="banner" role="alert" data-testid="no-transport">
        {problem}
      </p>
    </div>
  );
}
