import { useMemo, useState } from 'react';
import { prettyJson } from '../../shared/format';
import { CopyButton } from '../../shared/CopyButton';
import { byteLength, changedLines } from './detail-logic';
import { bytesOf } from '../../shared/format';

/**
 * The exact body: pretty by default, raw on demand (exactly the stored bytes as text). An edited
 * replay shows the original it was made from beside the edit, the differing lines marked.
 */
export function BodyView({ body, originalBody, replayOf }: { body: string | null; originalBody: string | null; replayOf: number | null }) {
  const [raw, setRaw] = useState(false);
  if (body === null) {
    return (
      <section className="ins-section" aria-label="Body">
        <h3>Body</h3>
        <p className="muted" data-testid="detail-body">
          Not mapped yet: the body is made and stored at the first attempt.
        </p>
      </section>
    );
  }
  const shown = raw ? body : prettyJson(body);
  return (
    <section className="ins-section" aria-label="Body">
      <div className="ins-section-head">
        <h3>Body</h3>
        <span className="muted ins-size" data-testid="detail-body-bytes">
          {bytesOf(byteLength(body))}
        </span>
        <div className="ins-segmented" role="group" aria-label="Body format">
          <button type="button" aria-pressed={!raw} data-testid="body-pretty-toggle" onClick={() => setRaw(false)}>
            Pretty
          </button>
          <button type="button" aria-pressed={raw} data-testid="body-raw-toggle" onClick={() => setRaw(true)}>
            Raw
          </button>
        </div>
        <CopyButton text={shown} label={raw ? 'Copy raw body' : 'Copy body'} testId="copy-body" className="ins-copy" />
      </div>
      {originalBody === null ? (
        <pre className={raw ? 'code ins-body-pre ins-raw' : 'code ins-body-pre'} data-testid={raw ? 'detail-body-raw' : 'detail-body'}>
          {shown}
        </pre>
      ) : (
        <EditBesideOriginal edited={shown} original={raw ? originalBody : prettyJson(originalBody)} raw={raw} replayOf={replayOf} />
      )}
    </section>
  );
}

function EditBesideOriginal({ edited, original, raw, replayOf }: { edited: string; original: string; raw: boolean; replayOf: number | null }) {
  const marks = useMemo(() => ({ removed: changedLines(original, edited), added: changedLines(edited, original) }), [original, edited]);
  return (
    <div className="ins-bodies ins-bodies-pair">
      <figure className="ins-body">
        <figcaption className="muted">Original{replayOf === null ? '' : ` (#${replayOf})`}</figcaption>
        <MarkedLines className={raw ? 'code ins-raw' : 'code'} testId="original-body" text={original} marks={marks.removed} mark="ins-removed" />
      </figure>
      <figure className="ins-body">
        <figcaption className="muted">Edited, as sent (signed anew)</figcaption>
        <MarkedLines className={raw ? 'code ins-raw' : 'code'} testId={raw ? 'detail-body-raw' : 'detail-body'} text={edited} marks={marks.added} mark="ins-added" />
      </figure>
    </div>
  );
}

/** A <pre> whose text is exactly `text` (the newlines stay in the text), with some lines marked. */
function MarkedLines({ text, marks, mark, className, testId }: { text: string; marks: boolean[]; mark: string; className: string; testId: string }) {
  const lines = text.split('\n');
  return (
    <pre className={className} data-testid={testId}>
      {lines.map((line, i) => (
        <span key={i} className={marks[i] ? `ins-line ${mark}` : 'ins-line'} data-changed={marks[i] ? 'true' : undefined}>
          {i < lines.length - 1 ? `${line}\n` : line}
        </span>
      ))}
    </pre>
  );
}
