import type { ProfilesCatchingUp, ProfileView } from '../../../src-shared/personas';
import { dateTimeOf, timeOf } from '../../shared/format';
import { valueInWords } from './computation-words';
import { useAudiences } from '../../app/view-stores';

export function ProfilesPanel() {
  const text = useAudiences((s) => s.profiles.text);
  const search = useAudiences((s) => s.searchProfiles);
  const open = useAudiences((s) => s.profiles.openId !== null);
  return (
    <aside className="card ps-profiles" data-testid="profiles-panel" aria-labelledby="ps-profiles-title">
      <h2 id="ps-profiles-title">Profiles</h2>
      <p className="muted card-intro">One per user, built from what the Tracking API received: identify traits merged, track events counted, alias calls linking ids.</p>
      <input
        type="search"
        data-testid="profile-search"
        aria-label="Search profiles"
        placeholder="Search by userId, anonymousId or trait value"
        value={text}
        spellCheck={false}
        onChange={(e) => search(e.target.value)}
      />
      {open ? <ProfileDetail /> : <ProfileList />}
    </aside>
  );
}

function ProfileList() {
  const { items, loaded, error, next, text, catchingUp } = useAudiences((s) => s.profiles);
  const more = useAudiences((s) => s.moreProfiles);
  const openProfile = useAudiences((s) => s.openProfile);
  return (
    <div className="ps-profile-list" data-testid="profile-list" aria-busy={!loaded}>
      {error && (
        <p className="field-error" role="alert" data-testid="profiles-error">
          {error}
        </p>
      )}
      {catchingUp && <CatchingUpNote progress={catchingUp} />}
      {loaded && items.length === 0 && !error && (
        <p className="empty-note" data-testid="profiles-empty">
          {text ? `No profile matches “${text}”.` : 'No profiles yet: send identify or track calls with a userId to a source.'}
        </p>
      )}
      <ul>
        {items.map((p) => (
          <li key={p.profileId}>
            <button type="button" className="ps-profile-row" data-testid="profile-row" data-profile={p.profileId} onClick={() => openProfile(p.profileId)}>
              <span className="mono">{p.profileId}</span>
              <span className="muted">
                {Object.keys(p.traits).length} trait{Object.keys(p.traits).length === 1 ? '' : 's'}, {p.events.reduce((n, e) => n + e.count, 0)} event
                {p.events.reduce((n, e) => n + e.count, 0) === 1 ? '' : 's'}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {next !== null && (
        <button type="button" className="btn small" data-testid="profiles-more" onClick={() => void more()}>
          More profiles
        </button>
      )}
    </div>
  );
}

/** A log kept before profiles followed each commit is read after start; until then lists are partial. */
export function CatchingUpNote({ progress }: { progress: ProfilesCatchingUp }) {
  const share = progress.of > 0 ? Math.floor((progress.read / progress.of) * 100) : 0;
  return (
    <p className="muted" role="status" data-testid="profiles-catching-up">
      Building profiles from the existing log ({share}% read): what is shown so far is partial.
    </p>
  );
}

function ProfileDetail() {
  const openId = useAudiences((s) => s.profiles.openId);
  const p = useAudiences((s) => s.profiles.open);
  const missing = useAudiences((s) => s.profiles.missing);
  const close = useAudiences((s) => s.openProfile);
  return (
    <div className="ps-profile" data-testid="profile-detail" data-profile={openId ?? ''}>
      <div className="card-head">
        <h3 className="mono ps-profile-id">{openId}</h3>
        <button type="button" className="btn small" data-testid="profile-close" onClick={() => close(null)}>
          Back to the list
        </button>
      </div>
      {missing && <p className="empty-note">This profile is gone (deleted, or merged into another by an alias).</p>}
      {p && <ProfileFacts p={p} />}
    </div>
  );
}

function ProfileFacts({ p }: { p: ProfileView }) {
  const traits = Object.entries(p.traits);
  const computed = Object.entries(p.computed);
  return (
    <>
      <dl className="facts">
        <dt>userId</dt>
        <dd className="mono">{p.userId ?? '— (anonymous so far)'}</dd>
        <dt>Other ids</dt>
        <dd className="mono" data-testid="profile-aliases">
          {p.aliases.length > 0 ? p.aliases.join(', ') : '—'}
        </dd>
        <dt>Updated</dt>
        <dd>{dateTimeOf(p.updatedAt)}</dd>
      </dl>
      <h3>Traits</h3>
      {traits.length === 0 ? (
        <p className="muted">No identify traits.</p>
      ) : (
        <table className="data-table nowrap compact" data-testid="profile-traits">
          <tbody>
            {traits.map(([k, v]) => (
              <tr key={k} data-trait={k}>
                <th className="mono">{k}</th>
                <td className="mono">{valueInWords(v)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Computed</h3>
      {computed.length === 0 ? (
        <p className="muted">No audience or computed trait has sent a value for this profile.</p>
      ) : (
        <table className="data-table nowrap compact" data-testid="profile-computed">
          <tbody>
            {computed.map(([k, v]) => (
              <tr key={k} data-key={k}>
                <th className="mono">{k}</th>
                <td className="mono">{valueInWords(v)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Events</h3>
      {p.events.length === 0 ? (
        <p className="muted">No track calls.</p>
      ) : (
        <table className="data-table nowrap compact" data-testid="profile-events">
          <thead>
            <tr>
              <th>Event</th>
              <th>Count</th>
              <th>Last</th>
              <th>Last properties</th>
            </tr>
          </thead>
          <tbody>
            {p.events.map((e) => (
              <tr key={e.event} data-event={e.event}>
                <td>{e.event}</td>
                <td data-testid="profile-event-count">{e.count}</td>
                <td>
                  <time dateTime={e.lastAt} title={dateTimeOf(e.lastAt)}>
                    {timeOf(e.lastAt)}
                  </time>
                </td>
                <td className="mono ps-props">{Object.keys(e.lastProperties).length > 0 ? JSON.stringify(e.lastProperties) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
