import type { HeaderRow, SideView } from './diff';

const SOURCE: Record<SideView['headerSource'], string> = {
  wire: 'as sent on the wire',
  engine: 'as the engine gave them (this attempt predates wire headers being kept)',
  none: 'no attempt yet: no headers',
};

/** The request headers of both sides, one name a row, differences marked. */
export function HeaderDiffTable({ rows, left, right }: { rows: HeaderRow[]; left: SideView; right: SideView }) {
  return (
    <table className="headers cmp-headers" data-testid="diff-headers">
      <thead>
        <tr>
          <th scope="col">Header</th>
          <th scope="col">
            Left <span className="muted">({SOURCE[left.headerSource]})</span>
          </th>
          <th scope="col">
            Right <span className="muted">({SOURCE[right.headerSource]})</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.name.toLowerCase()} className={`cmp-row cmp-${r.kind}`} data-testid="diff-header-row" data-name={r.name.toLowerCase()} data-kind={r.kind}>
            <th scope="row">
              {r.kind !== 'same' && (
                <span className="dt-mark" aria-label={r.kind}>
                  {r.kind === 'changed' ? '~' : r.kind === 'added' ? '+' : '-'}
                </span>
              )}
              {r.name}
            </th>
            <td className="mono cmp-left">{r.left ?? <span className="muted">—</span>}</td>
            <td className="mono cmp-right">{r.right ?? <span className="muted">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
