import type { DiffNode } from './diff';

const show = (v: unknown): string => JSON.stringify(v) ?? 'undefined';

/** The body diff as a JSON tree: changed values with both sides, added and removed entries marked, unchanged branches folded. */
export function DiffTree({ root }: { root: DiffNode }) {
  return (
    <div className="dt mono" data-testid="diff-body-tree" role="tree" aria-label="Body differences">
      <Node node={root} depth={0} />
    </div>
  );
}

function Key({ node }: { node: DiffNode }) {
  return node.key === null ? null : <span className="dt-key">{node.key}: </span>;
}

const MARK: Record<DiffNode['kind'], string> = { same: ' ', changed: '~', added: '+', removed: '-' };

function Node({ node, depth }: { node: DiffNode; depth: number }) {
  const mark = (
    <span className="dt-mark" aria-hidden="true">
      {MARK[node.kind]}
    </span>
  );
  if (node.children && node.brackets) {
    const [open, close] = node.brackets.split('') as [string, string];
    const inner = node.children.map((c, i) => <Node key={`${c.key ?? ''}-${i}`} node={c} depth={depth + 1} />);
    if (node.kind === 'same' && depth > 0) {
      // Unchanged branches stay folded, so the differences are what the eye meets.
      return (
        <details className="dt-node dt-same" role="treeitem" data-kind="same">
          <summary>
            {mark}
            <Key node={node} />
            {open}…{close} <span className="dt-note">{node.children.length} unchanged</span>
          </summary>
          <div className="dt-children">{inner}</div>
        </details>
      );
    }
    return (
      <div className={`dt-node dt-${node.kind}`} role="treeitem" data-kind={node.kind} data-key={node.key ?? undefined}>
        <div className="dt-line">
          {mark}
          <Key node={node} />
          {open}
        </div>
        <div className="dt-children" role="group">
          {inner}
        </div>
        <div className="dt-line">
          <span className="dt-mark" aria-hidden="true">
            {' '}
          </span>
          {close}
        </div>
      </div>
    );
  }
  return (
    <div className={`dt-node dt-line dt-${node.kind}`} role="treeitem" data-testid={`diff-${node.kind}`} data-kind={node.kind} data-key={node.key ?? undefined}>
      {mark}
      <Key node={node} />
      {node.kind === 'changed' ? (
        <>
          <del className="dt-left">{show(node.left)}</del>
          <span className="dt-arrow" aria-label="becomes">
            {' → '}
          </span>
          <ins className="dt-right">{show(node.right)}</ins>
        </>
      ) : node.kind === 'removed' ? (
        <del className="dt-left">{show(node.left)}</del>
      ) : node.kind === 'added' ? (
        <ins className="dt-right">{show(node.right)}</ins>
      ) : (
        <span>{show(node.right)}</span>
      )}
    </div>
  );
}
