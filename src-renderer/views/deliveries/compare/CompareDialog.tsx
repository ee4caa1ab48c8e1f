import { useEffect, useMemo } from 'react';
import { useCompare } from '../../../app/view-stores';
import { diffBodies, diffHeaders, sideView } from './diff';
import { DiffTree } from './DiffTree';
import { HeaderDiffTable } from './HeaderDiffTable';

/** Two deliveries or attempts side by side: what they are, their bodies as a tree diff, their headers. */
export function CompareDialog() {
  const pair = useCompare((s) => s.pair);
  const details = useCompare((s) => s.details);
  const error = useCompare((s) => s.error);
  const close = useCompare((s) => s.close);
  useEffect(() => {
    if (!pair) return;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        close();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [pair, close]);
  const views = useMemo(() => {
    if (!pair || !details) return null;
    const left = sideView(details[0], pair[0]);
    const right = sideView(details[1], pair[1]);
    return { left, right, body: diffBodies(left.body, right.body), headers: diffHeaders(left.headers, right.headers) };
  }, [pair, details]);
  if (!pair) return null;
  return (
    <div className="cmp-backdrop" onClick={close}>
      <section className="cmp" role="dialog" aria-modal="true" aria-label="Compare" data-testid="compare" onClick={(e) => e.stopPropagation()}>
        <div className="cmp-head">
          <h2>Compare</h2>
          <button type="button" onClick={close} aria-label="Close comparison" data-testid="compare-close">
            ×
          </button>
        </div>
        {error && (
          <p className="notice warn" role="alert" data-testid="compare-error">
            {error}
          </p>
        )}
        {!views && !error && <p className="muted">Loading…</p>}
        {views && (
          <>
            <div className="cmp-sides">
              {[views.left, views.right].map((s, i) => (
                <div key={i} className={`cmp-side cmp-side-${i === 0 ? 'left' : 'right'}`} data-testid={`compare-${i === 0 ? 'left' : 'right'}`}>
                  <span className="cmp-which">{i === 0 ? 'Left' : 'Right'}</span>
                  <strong>{s.title}</strong>
                  <span className="muted mono">{s.outcome}</span>
                </div>
              ))}
            </div>
            <h3>
              Body ·{' '}
              <span className="muted" data-testid="diff-body-summary">
                {views.body.kind === 'json'
                  ? views.body.changes === 0
                    ? 'identical JSON'
                    : `${views.body.changes} difference${views.body.changes === 1 ? '' : 's'}`
                  : views.body.same
                    ? 'identical'
                    : 'differs (not JSON on both sides: compared as text)'}
              </span>
            </h3>
            {views.body.kind === 'json' ? (
              <DiffTree root={views.body.root} />
            ) : (
              <div className="cmp-text">
                <pre className="code">{views.body.left ?? '(no body)'}</pre>
                <pre className="code">{views.body.right ?? '(no body)'}</pre>
              </div>
            )}
            <h3>
              Request headers ·{' '}
              <span className="muted" data-testid="diff-headers-summary">
                {views.headers.filter((r) => r.kind !== 'same').length} of {views.headers.length} differ
              </span>
            </h3>
            <HeaderDiffTable rows={views.headers} left={views.left} right={views.right} />
          </>
        )}
      </section>
    </div>
  );
}
