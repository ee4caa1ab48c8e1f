import { useMemo } from 'react';
import { formatJson, parseJsonObject, type JsonField } from './form';
import { FieldError } from './FieldError';
import { useCompose } from '../../app/view-stores';

const LABELS: Record<JsonField, string> = { properties: 'Properties', traits: 'Traits', context: 'Context' };

/** A textarea for one JSON object, with its parse status as you type and a Format button. */
export function JsonEditor({ field, placeholder, hint }: { field: JsonField; placeholder: string; hint?: React.ReactNode }) {
  const text = useCompose((s) => s.form[field]);
  const update = useCompose((s) => s.update);
  const refused = useCompose((s) => s.fieldErrors[field] !== undefined);
  const parsed = useMemo(() => parseJsonObject(text), [text]);
  const keys = parsed.ok && parsed.value ? Object.keys(parsed.value).length : 0;
  const id = `compose-${field}`;
  return (
    <div className="field">
      <div className="compose-json-head">
        <label htmlFor={id}>{LABELS[field]}</label>
        <span
          className={parsed.ok ? 'compose-json-status ok' : 'compose-json-status bad'}
          data-testid={`${id}-status`}
          data-valid={parsed.ok ? 'true' : 'false'}
          role={parsed.ok ? undefined : 'status'}
        >
          {parsed.ok ? (parsed.value === undefined ? 'empty: not sent' : `valid object, ${keys} ${keys === 1 ? 'key' : 'keys'}`) : 'not valid JSON'}
        </span>
        <button
          type="button"
          className="btn small"
          data-testid={`${id}-format`}
          disabled={!parsed.ok || text.trim() === ''}
          onClick={() => {
            const formatted = formatJson(text);
            if (formatted !== null) update({ [field]: formatted });
          }}
        >
          Format
        </button>
      </div>
      <textarea
        id={id}
        className="code"
        data-testid={id}
        value={text}
        placeholder={placeholder}
        rows={Math.min(14, Math.max(3, text.split('\n').length + 1))}
        spellCheck={false}
        aria-invalid={!parsed.ok || refused}
        onChange={(e) => update({ [field]: e.target.value })}
      />
      {!parsed.ok && (
        <p className="field-error" data-testid={`${id}-parse-error`}>
          {parsed.error}
        </p>
      )}
      {hint}
      {/* A parse error is already said above; the field error then repeats it. */}
      {parsed.ok && <FieldError field={field} />}
    </div>
  );
}
