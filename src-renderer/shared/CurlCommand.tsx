import { useState } from 'react';
import { useCopy } from './CopyButton';
import type { AttemptView } from '../../src-shared/api';
import { curlCommand } from './curl';

/**
 * An attempt as a cURL command that reproduces it exactly (URL, headers with X-Signature, body
 * bytes): its headers as written on the wire when they were kept, else the ones the engine gave it.
 * Shown on demand, and copied where the clipboard allows.
 */
export function CurlCommand({ attempt, body, testId = 'copy-curl', commandTestId = 'curl-command' }: { attempt: AttemptView; body: string; testId?: string; commandTestId?: string }) {
  const [shown, setShown] = useState(false);
  const [copy, copyText] = useCopy();
  const command = curlCommand({ url: attempt.url, headers: attempt.sentHeaders ?? attempt.requestHeaders, body });
  const onCopy = (): void => {
    setShown(true);
    copyText(command);
  };
  return (
    <div className="ins-curl">
      <button type="button" data-testid={testId} data-state={copy} onClick={onCopy}>
        {copy === 'copied' ? 'Copied cURL' : 'Copy as cURL'}
      </button>
      {copy === 'refused' && <span className="muted"> The browser refused the clipboard: select the command below.</span>}
      {shown && (
        <pre className="code" data-testid={commandTestId}>
          {command}
        </pre>
      )}
    </div>
  );
}
