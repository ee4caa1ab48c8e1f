import { useState } from 'react';
import { useCopy } from './CopyButton';
import type { AttemptView } from '../../src-shared/api';
import { curlCommand } from './curl';

/**
 * The last attempt as a cURL command that reproduces it exactly (URL, headers with X-Signature, body
 * bytes): shown on demand, and copied where the clipboard allows.
 */
export function CurlCommand({ attempt, body }: { attempt: AttemptView; body: string }) {
  const [shown, setShown] = useState(false);
  const [copy, copyText] = useCopy();
  const command = curlCommand({ url: attempt.url, headers: attempt.requestHeaders, body });
  const onCopy = (): void => {
    setShown(true);
    copyText(command);
  };
  return (
    <div className="ins-curl">
      <button type="button" data-testid="copy-curl" data-state={copy} onClick={onCopy}>
        {copy === 'copied' ? 'Copied cURL' : 'Copy as cURL'}
      </button>
      {copy === 'refused' && <span className="muted"> The browser refused the clipboard: select the command below.</span>}
      {shown && (
        <pre className="code" data-testid="curl-command">
          {command}
        </pre>
      )}
    </div>
  );
}
