import { useState } from 'react';
import { integrationsOf, reachesWebhooks } from './form';
import { FieldError } from './FieldError';
import { useCompose } from '../../app/view-stores';

/** All, Webhooks and any other destination names, as switches; shows the map they make. */
export function IntegrationSwitches() {
  const all = useCompose((s) => s.form.all);
  const switches = useCompose((s) => s.form.integrations);
  const update = useCompose((s) => s.update);
  const setIntegration = useCompose((s) => s.setIntegration);
  const removeIntegration = useCompose((s) => s.removeIntegration);
  const addIntegration = useCompose((s) => s.addIntegration);
  const key = useCompose((s) => s.integrationKey);
  const setKey = useCompose((s) => s.setIntegrationKey);
  const [problem, setProblem] = useState<string | null>(null);
  const map = integrationsOf(all, switches);
  const reaches = reachesWebhooks(map);

  const add = (): void => {
    const why = addIntegration(key);
    setProblem(why);
    if (!why) setKey('');
  };
  return (
    <fieldset className="field group compose-integrations">
      <legend>Integrations</legend>
      <div className="compose-switches">
        <label className="compose-switch">
          <input type="checkbox" data-testid="compose-integration-All" checked={all} onChange={(e) => update({ all: e.target.checked })} />
          All
        </label>
        {switches.map((s, i) => (
          <span key={s.key} className="compose-switch">
            <label>
              <input type="checkbox" data-testid={`compose-integration-${s.key}`} checked={s.on} onChange={(e) => setIntegration(i, e.target.checked)} />
              {s.key}
            </label>
            {i > 0 && (
              <button type="button" className="compose-remove" aria-label={`Remove ${s.key}`} data-testid={`compose-integration-remove-${s.key}`} onClick={() => removeIntegration(i)}>
                ×
              </button>
            )}
          </span>
        ))}
        <span className="compose-add-key">
          <input
            value={key}
            placeholder="Destination name"
            aria-label="Destination name to add"
            data-testid="compose-integration-new"
            onChange={(e) => {
              setKey(e.target.value);
              setProblem(null);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                add();
              }
            }}
          />
          <button type="button" className="btn small" data-testid="compose-integration-add" onClick={add}>
            Add
          </button>
        </span>
      </div>
      {problem && <p className="field-error">{problem}</p>}
      <p className="muted hint" data-testid="compose-integrations-preview">
        {map === undefined ? 'No integrations object: every destination is on.' : <code>{JSON.stringify(map)}</code>}{' '}
        <span className={reaches ? 'compose-reach ok' : 'compose-reach bad'} data-testid="compose-reaches-webhooks">
          {reaches ? 'Webhooks destinations will get this call.' : 'Webhooks destinations will not get this call.'}
        </span>
      </p>
      <FieldError field="integrations" />
    </fieldset>
  );
}
