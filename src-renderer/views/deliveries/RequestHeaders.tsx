import type { AttemptView, SignatureCheck } from '../../../src-shared/api';
import { signatureBadge } from './detail-logic';

/** The headers the last attempt sent, X-Signature included, and the check of that signature. */
export function RequestHeaders({ attempt, signature }: { attempt: AttemptView | undefined; signature: SignatureCheck }) {
  return (
    <section className="ins-section" aria-label="Request headers">
      <h3>Request headers{attempt ? ' (last attempt)' : ''}</h3>
      {attempt ? (
        <table className="headers" data-testid="detail-headers">
          <tbody>
            {Object.entries(attempt.requestHeaders).map(([name, value]) => (
              <tr key={name} data-testid={`header-${name.toLowerCase()}`}>
                <th scope="row">{name}</th>
                <td className="mono" data-testid={name.toLowerCase() === 'x-signature' ? 'detail-signature' : undefined}>
                  {value}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">No attempt yet: the headers appear once the first request goes out.</p>
      )}
      <SignatureBadge signature={signature} />
    </section>
  );
}

export function SignatureBadge({ signature }: { signature: SignatureCheck }) {
  const badge = signatureBadge(signature.state);
  return (
    <div className={`ins-signature ins-signature-${signature.state}`} data-testid="signature-check" data-state={signature.state}>
      <span className="ins-badge" data-testid="signature-badge">
        <span aria-hidden="true">{badge.icon}</span> {badge.label}
      </span>
      <span className="ins-signature-text" data-testid="signature-explanation">
        {signature.explanation}
      </span>
      {signature.parts && (
        <ul className="ins-signature-parts" data-testid="signature-parts">
          {signature.parts.map((part) => (
            <li key={part.scheme} data-testid={`signature-part-${part.scheme}`} data-state={part.state}>
              <span className="ins-badge">
                <span aria-hidden="true">{signatureBadge(part.state).icon}</span> {part.header}: {signatureBadge(part.state).label}
              </span>{' '}
              <span className="muted">{part.explanation}</span>
            </li>
          ))}
        </ul>
      )}
      {signature.state === 'mismatch' && (
        <dl className="ins-signature-values">
          <dt>sent</dt>
          <dd className="mono">{signature.sent ?? '(none)'}</dd>
          <dt>expected now</dt>
          <dd className="mono" data-testid="signature-expected">
            {signature.expected ?? '(cannot be computed)'}
          </dd>
        </dl>
      )}
    </div>
  );
}
