import { SIGNING_SCHEMES, type FieldError, type SigningScheme } from '../../../src-shared/settings';
import { standardWebhooksSecret } from '../../../src-shared/signing';
import { FieldErrors } from '../../shared/form-widgets';
import { CopyButton } from '../../shared/CopyButton';
import { field, type DestinationDraft } from './destination-form';

const SCHEMES = Object.keys(SIGNING_SCHEMES) as SigningScheme[];

/**
 * The signing scheme, and for Standard Webhooks the secret in the `whsec_` form its libraries take:
 * masked unless the secret itself is revealed, copyable either way.
 */
export function SigningChoice({
  draft,
  reveal,
  onChange,
  errors,
}: {
  draft: DestinationDraft;
  reveal: boolean;
  onChange: (scheme: SigningScheme) => void;
  errors: FieldError[];
}) {
  const standard = draft.signing === 'x-signature+standard-webhooks';
  const whsec = draft.sharedSecret === '' ? null : standardWebhooksSecret(draft.sharedSecret);
  return (
    <fieldset className="group" data-testid="destination-signing-group">
      <legend>Signing</legend>
      <select value={draft.signing} onChange={(e) => onChange(e.target.value as SigningScheme)} data-testid="destination-signing" aria-label="Signing scheme">
        {SCHEMES.map((s) => (
          <option key={s} value={s}>
            {SIGNING_SCHEMES[s].label}
          </option>
        ))}
      </select>
      {standard && (
        <div data-testid="destination-whsec-block">
          <p className="muted hint">
            Standard Webhooks receivers take the same secret written as <code>whsec_</code> + the base64 of its UTF-8 bytes. Give them this string:
          </p>
          {whsec === null ? (
            <p className="muted hint">Set a shared secret first: without one nothing is signed.</p>
          ) : (
            <div className="inline">
              <code className="mono grow" data-testid="destination-whsec">
                {reveal ? whsec : `whsec_${'•'.repeat(Math.min(24, whsec.length - 6))}`}
              </code>
              <CopyButton text={whsec} testId="destination-whsec-copy" />
            </div>
          )}
        </div>
      )}
      <FieldErrors errors={errors} fields={[field.signing]} label="The scheme" />
    </fieldset>
  );
}
