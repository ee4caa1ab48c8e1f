import type { Destination } from '../../../src-shared/settings';
import { DestinationEditor } from './DestinationEditor';
import { ConfirmButton } from '../../shared/form-widgets';
import { useConfigure } from '../../app/view-stores';
import { TestEventControl } from '../test-events/TestEventControl';

export function DestinationsSection() {
  const destinations = useConfigure((s) => s.destinations);
  const editing = useConfigure((s) => s.draft !== null);
  const newDestination = useConfigure((s) => s.newDestination);
  return (
    <section className="card" data-testid="destinations-section" aria-labelledby="destinations-title">
      <div className="card-head">
        <h2 id="destinations-title">Webhooks destinations</h2>
        <button type="button" className="btn primary" onClick={newDestination} data-testid="destination-new">
          New destination
        </button>
      </div>
      <p className="muted card-intro">
        Each event from an attached source is POSTed to every URL of an enabled destination, signed with its shared secret.
      </p>
      {destinations.length === 0 && !editing ? (
        <p className="empty-note" data-testid="destinations-empty">
          No destinations yet. Create one with the URL of your receiver (up to five URLs), attach a source, and events start flowing.
        </p>
      ) : (
        destinations.length > 0 && (
          <table className="data-table" data-testid="destinations">
            <thead>
              <tr>
                <th>Name</th>
                <th>State</th>
                <th>Sources</th>
                <th>URLs</th>
                <th>Signed</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {destinations.map((d) => (
                <DestinationRow key={d.id} destination={d} />
              ))}
            </tbody>
          </table>
        )
      )}
      <DestinationEditor />
    </section>
  );
}

/** "2", or "1 of 2 on" when some URLs are switched off. */
function urlCount(d: Destination): string {
  const on = d.webhooks.filter((w) => w.enabled !== false).length;
  return on === d.webhooks.length ? String(on) : `${on} of ${d.webhooks.length} on`;
}

function DestinationRow({ destination: d }: { destination: Destination }) {
  const editingThis = useConfigure((s) => s.draft?.saved === d.name);
  const edit = useConfigure((s) => s.editDestination);
  const remove = useConfigure((s) => s.deleteDestination);
  const refusal = useConfigure((s) => s.removeErrors[d.name]);
  return (
    <>
      <tr className={editingThis ? 'selected' : undefined} data-testid="destination-row" data-name={d.name}>
        <td data-testid="destination-row-name">{d.name}</td>
        <td>
          <span className={d.enabled ? 'status status-succeeded' : 'status'} data-testid="destination-row-state">
            {d.enabled ? 'enabled' : 'off'}
          </span>
          {d.warp > 1 && (
            <span className="warp-badge" data-testid="destination-row-warp" title="New deliveries run their retry schedule this many times faster">
              warp ×{d.warp}
            </span>
          )}
        </td>
        <td>{d.sources.length > 0 ? d.sources.join(', ') : <span className="muted">none — nothing reaches it</span>}</td>
        <td title={d.webhooks.map((w) => `${w.url}${w.enabled === false ? ' (switched off)' : ''}`).join('\n')} data-testid="destination-row-urls">
          {urlCount(d)}
        </td>
        <td>{d.sharedSecret ? 'X-Signature' : <span className="muted">no secret</span>}</td>
        <td className="cfg-actions">
          <button type="button" className="btn small" onClick={() => edit(d.name)} data-testid="destination-edit">
            Edit
          </button>
          <ConfirmButton label="Delete" confirm={`Delete “${d.name}”`} testId="destination-delete" onConfirm={() => void remove(d.name)} />
        </td>
      </tr>
      {d.webhooks.length > 0 && (
        <tr className="test-event-row" data-testid="destination-test-row" data-name={d.name}>
          <td colSpan={6}>
            <TestEventControl destination={d.name} urls={d.webhooks.map((w) => w.url)} />
          </td>
        </tr>
      )}
      {refusal && (
        <tr>
          <td colSpan={6}>
            <p className="field-error" role="alert" data-testid="destination-delete-error">
              Not deleted: {refusal}
            </p>
          </td>
        </tr>
      )}
    </>
  );
}
