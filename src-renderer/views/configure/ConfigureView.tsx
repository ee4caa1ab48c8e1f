import { DeliverySection } from './DeliverySection';
import { DestinationsSection } from './DestinationsSection';
import { RetentionSection } from './RetentionSection';
import { SourcesSection } from './SourcesSection';
import { TrackingPlanSection } from './TrackingPlanSection';
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
            <TrackingPlanSection />
          </div>
        </div>
      )}
    </section>
  );
}
