import { useState } from 'react';
import type { AttemptView } from '../../src-shared/api';
import { curlCommand } from '../curl';

/** The last attempt as a cURL command: shown on demand, and copied where the clipboard allows. */
export function CurlCommand({ attempt, body }: { attempt: AttemptView; body: string }) {
  const [shown, setShown] = useState(false);
  const [copied, setCopied] = useState(false);
  const command = curlCommand({ url: attempt.url, headers: attempt.requestHeaders, body });
  const copy = (): void => {
    setShown(true);
    void navigator.clipboard?.writeText(command).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <div className="curl">
      <button type="button" data-testid="copy-curl" onClick={copy}>
        {copied ? 'Copied cURL' : 'Copy as cURL'}
      </button>
      {shown && (
        <pre className="code" data-testid="curl-command">
          {command}
        </pre>
      )}
    </div>
  );
}
