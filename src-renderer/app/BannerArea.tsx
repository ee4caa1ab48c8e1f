import { useViewState, useDeliveries, useHealth, useRetry, type StoreName } from './view-stores';
import { bannerWords } from './health-words';

/** The one place above every view where the window says what is wrong, most fundamental first. */
export function BannerArea({ view }: { view: StoreName }) {
  return (
    <>
      <StoppedBanner />
      <StorageBanner />
      <ErrorBanner view={view} />
    </>
  );
}

/** Once the engine said it stopped, what is on screen is the last it showed: say so over every view. */
function StoppedBanner() {
  const stopped = useDeliveries((s) => s.connection === 'stopped');
  if (!stopped) return null;
  return (
    <p className="banner" role="alert" data-testid="stopped-banner">
      Hookbench stopped: nothing here updates any more until it is started again. Started on the same data folder and port, this
      tab reconnects by itself.
    </p>
  );
}

/** Shown while the engine cannot write its log: why, where, and what to do. */
function StorageBanner() {
  const health = useHealth((s) => s.health);
  const words = bannerWords(health);
  if (!words || !health?.problem) return null;
  return (
    <div className="banner storage-banner" role="alert" data-testid="storage-banner" data-code={health.problem.code}>
      <strong>{words.title}</strong> {words.advice}
      <div className="storage-banner-detail">
        Data folder: <code>{words.dataDir}</code>. {words.meanwhile}
      </div>
    </div>
  );
}

/** What a view's load failed on, before the words it shows it with. Compose places its errors by the fields instead. */
const LOAD_FAILED: Partial<Record<StoreName, string>> = {
  configure: 'Could not load the configuration: ',
  deletions: 'Could not load the deletion requests: ',
};

/**
 * The Deliveries store follows the engine over every view, so its failure is shown everywhere; the
 * shown view's own failure is added below it. Each goes away by itself once a read succeeds (the
 * stores read again when the live stream comes back); Retry reads again at once.
 */
function ErrorBanner({ view }: { view: StoreName }) {
  const windowError = useDeliveries((s) => s.error);
  const shown = view === 'compose' || view === 'health' ? 'deliveries' : view;
  const viewError = useViewState(shown, (s) => s.error);
  const retryWindow = useRetry('deliveries');
  const retryView = useRetry(shown);
  return (
    <>
      {windowError && (
        <p className="banner banner-with-action" role="alert" data-testid="error-banner">
          <span>{windowError}</span>
          <RetryButton onRetry={retryWindow} testId="error-banner-retry" />
        </p>
      )}
      {shown !== 'deliveries' && viewError && (
        <p className="banner banner-with-action" role="alert" data-testid={`${view}-error`}>
          <span>
            {LOAD_FAILED[view] ?? ''}
            {viewError}
          </span>
          <RetryButton onRetry={retryView} testId={`${view}-error-retry`} />
        </p>
      )}
    </>
  );
}

function RetryButton({ onRetry, testId }: { onRetry: () => void; testId: string }) {
  return (
    <button type="button" className="btn small" data-testid={testId} onClick={onRetry}>
      Retry
    </button>
  );
}
