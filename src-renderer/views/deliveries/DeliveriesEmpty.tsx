import { useDeliveries } from '../../app/view-stores';
import { CopyButton } from '../../shared/CopyButton';
import { EmptyState } from '../../shared/EmptyState';
import { firstCurl, firstRun } from './first-run';

/** The empty log as a first run: a source, a destination, then a test event, each step saying what is done and what to do. */
export function DeliveriesEmpty() {
  const sources = useDeliveries((s) => s.sources);
  const destinations = useDeliveries((s) => s.destinations);
  const testEvent = useDeliveries((s) => s.testEvent);
  const sendTest = useDeliveries((s) => s.sendTestEvent);
  const { source, destination, destinationMissing } = firstRun(sources, destinations);
  return (
    <EmptyState title="No deliveries yet" testId="empty-state">
      <p>Three steps to a first delivery; each turns green when it is done.</p>
      <ol className="first-run" data-testid="first-run">
        <li className={source ? 'done' : 'todo'} data-testid="first-run-source" data-done={source !== null}>
          <strong>A source.</strong>{' '}
          {source ? (
            <>
              “{source.name}” sends with the write key <code className="mono">{source.writeKey}</code>{' '}
              <CopyButton text={source.writeKey} testId="first-run-writekey-copy" />
            </>
          ) : (
            <>
              An app or service that sends events, with its write key. <a href="#/configure">Create one in Configure</a>.
            </>
          )}
        </li>
        <li className={destination ? 'done' : 'todo'} data-testid="first-run-destination" data-done={destination !== null}>
          <strong>A destination.</strong>{' '}
          {destination ? (
            <>
              “{destination.name}” receives them at <code className="mono">{destination.webhooks.find((w) => w.enabled !== false)?.url}</code>.
            </>
          ) : (
            <>
              {destinationMissing ?? 'A Webhooks destination: the URL of your receiver, attached to the source.'}{' '}
              <a href="#/configure">Add one in Configure</a>.
            </>
          )}
        </li>
        <li className={testEvent?.state === 'sent' ? 'done' : 'todo'} data-testid="first-run-event">
          <strong>A test event.</strong>{' '}
          {source ? (
            <>
              <button
                type="button"
                className="btn small primary"
                data-testid="first-run-send"
                disabled={testEvent?.state === 'sending'}
                onClick={() => void sendTest(source.name)}
              >
                {testEvent?.state === 'sending' ? 'Sending…' : 'Send a test event'}
              </button>{' '}
              or send one yourself:
              {testEvent?.state === 'sent' && (
                <span className="muted" role="status" data-testid="first-run-sent">
                  {' '}
                  Sent; {destination ? 'it appears here in a moment.' : 'it is in Inbound, but with no destination nothing is delivered.'}
                </span>
              )}
              {testEvent?.state === 'refused' && (
                <span className="field-error" role="alert" data-testid="first-run-refused">
                  {' '}
                  Not sent: {testEvent.why}
                </span>
              )}
              <figure className="snippet">
                <figcaption>
                  <span>curl</span>
                  <CopyButton text={firstCurl(location.origin, source.writeKey)} testId="empty-snippet-copy" />
                </figcaption>
                <pre className="code" data-testid="empty-snippet">
                  {firstCurl(location.origin, source.writeKey)}
                </pre>
              </figure>
            </>
          ) : (
            <span className="muted">Once there is a source, send one from here or with curl.</span>
          )}
        </li>
      </ol>
    </EmptyState>
  );
}
