import { describeDelivery, PRESET_LABELS, PRESET_NAMES, presetOf, type PresetName } from './preset-words';
import { useConfigure } from '../../app/view-stores';

export function DeliverySection() {
  const delivery = useConfigure((s) => s.delivery);
  const error = useConfigure((s) => s.presetError);
  const setPreset = useConfigure((s) => s.setPreset);
  if (!delivery) return null;
  const preset = presetOf(delivery);
  return (
    <section className="card" data-testid="delivery-section" aria-labelledby="delivery-title">
      <h2 id="delivery-title">Timeouts and retries</h2>
      <label className="field">
        <span className="field-label">Retry preset (all destinations)</span>
        <select value={preset} onChange={(e) => void setPreset(e.target.value as PresetName)} data-testid="retry-preset">
          {PRESET_NAMES.map((name) => (
            <option key={name} value={name}>
              {PRESET_LABELS[name]}
            </option>
          ))}
          {preset === 'custom' && (
            <option value="custom" disabled>
              Custom — set in the config file
            </option>
          )}
        </select>
      </label>
      <p data-testid="retry-words">{describeDelivery(delivery)}</p>
      {error && (
        <p className="field-error" role="alert" data-testid="field-error" data-field="delivery.preset">
          {error}
        </p>
      )}
    </section>
  );
}
