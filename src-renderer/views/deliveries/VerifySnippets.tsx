import { useState } from 'react';
import type { DeliveryDetail } from '../../../src-shared/api';
import { SNIPPET_LANGUAGES, verifySnippet, type SnippetLanguage } from '../../../src-shared/verify-snippets';
import { CopyButton } from '../../shared/CopyButton';
import { useDeliveries } from '../../app/view-stores';

/**
 * A receiver that verifies X-Signature over the raw bytes, in five languages, with Copy. The secret
 * is read from WEBHOOK_SECRET; it is written into the code only after the user asks to reveal it.
 */
export function VerifySnippets({ detail }: { detail: DeliveryDetail }) {
  const revealSecret = useDeliveries((s) => s.revealSecret);
  const [language, setLanguage] = useState<SnippetLanguage>('node');
  const [secret, setSecret] = useState<string | null>(null);
  const [noSecret, setNoSecret] = useState(false);
  if (detail.destinationName === null) return null;
  const snippet = verifySnippet(language, secret);
  const toggle = (): void => {
    if (secret !== null) {
      setSecret(null);
      return;
    }
    void revealSecret().then((s) => {
      setNoSecret(s === null);
      setSecret(s);
    });
  };
  return (
    <section className="ins-section ins-snippets" aria-label="Verify in your receiver" data-testid="verify-snippets">
      <div className="ins-section-head">
        <h3>Verify in your receiver</h3>
        <span className="muted ins-size">X-Signature over the raw bytes, compared in constant time</span>
      </div>
      <div className="buttons" role="tablist" aria-label="Language">
        {SNIPPET_LANGUAGES.map((l) => (
          <button key={l} type="button" role="tab" aria-selected={l === language} className="btn small" onClick={() => setLanguage(l)} data-testid={`snippet-tab-${l}`}>
            {verifySnippet(l).title}
          </button>
        ))}
        <button type="button" className="btn small" aria-pressed={secret !== null} onClick={toggle} data-testid="snippet-reveal">
          {secret !== null ? 'Hide secret' : 'Fill in the secret'}
        </button>
      </div>
      {noSecret && <p className="muted hint">This destination has no shared secret: its requests are not signed.</p>}
      <figure className="snippet">
        <figcaption>
          <span className="mono">
            {snippet.file} · {snippet.run}
          </span>
          <CopyButton text={snippet.code} testId="snippet-copy" />
        </figcaption>
        <pre className="code" data-testid="snippet-code" data-language={language}>
          {snippet.code}
        </pre>
      </figure>
    </section>
  );
}
