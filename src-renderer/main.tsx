import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, NoTransport } from './app/App';
import { sharedTransport } from './live';
import { createViewStores, startWindowStores } from './app/view-stores';
import { pickTransport } from './transport';
import './styles.css';
import './views/inbound/inbound.css';
import './views/transfer/transfer.css';
import './views/compose/compose.css';
import './views/configure/configure.css';
import './views/deliveries/detail.css';
import './views/deliveries/list.css';
import './views/deliveries/warp.css';
import './views/audiences/audiences.css';
import './views/deletions/deletions.css';
import './views/test-events/test-events.css';
import './views/deliveries/compare/compare.css';
import './views/receivers/receivers.css';

const element = document.getElementById('root');
if (!element) throw new Error('index.html has no #root');
const picked = pickTransport(location.search);
const root = createRoot(element);
if ('problem' in picked) {
  root.render(<NoTransport problem={picked.problem} />);
} else {
  const transport = sharedTransport(picked.transport);
  const stores = createViewStores(transport);
  startWindowStores(stores);
  root.render(
    <StrictMode>
      <App stores={stores} />
    </StrictMode>,
  );
}
