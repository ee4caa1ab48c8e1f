import { useEffect, useState } from 'react';
import { useTransport } from '../../app/stores-context';
import { ConfigureContext, useConfigure } from './context';
import { DeliverySection } from './DeliverySection';
import { DestinationsSection } from './DestinationsSection';
import { RetentionSection } from './RetentionSection';
import { SourcesSection } from './SourcesSection';
import { createConfigureStore } from './store';

export function ConfigureView() {
  const transport = useTransport();
  const [configure] = useState(() => createConfigureStore(transport));
  useEffect(() => configure.start(), [configure]);
  return (
    <ConfigureContext.Provider value={configure.store}>
      <Configure />
    </ConfigureContext.Provider>
  );
}

function Configure() {
  const loaded = useConfigure((s) => s.loaded);
  const error = useConfigure((s) => s.error);
  return (
    <section className="view configure" data-testid="configure-view" aria-busy={!loaded}>
      {error && (
        <p className="banner" role="alert" data-testid="configure-error">
          Could not load the configuration: {error}
        </p>
      )}
      {loaded && (
        <div className="columns" data-testid="configure-ready">
          <SourcesSection />
          <div className="stack">
            <DestinationsSection />
            <DeliverySection />
            <RetentionSection />
          </div>
        </div>
      )}
    </section>
  );
}
