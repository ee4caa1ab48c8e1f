import { DeliverySection } from './DeliverySection';
import { DestinationsSection } from './DestinationsSection';
import { RetentionSection } from './RetentionSection';
import { SourcesSection } from './SourcesSection';
import { useConfigure, useFollowWhileShown } from '../../app/view-stores';

export function ConfigureView() {
  useFollowWhileShown('configure');
  const loaded = useConfigure((s) => s.loaded);
  return (
    <section className="view configure" data-testid="configure-view" aria-busy={!loaded}>
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
