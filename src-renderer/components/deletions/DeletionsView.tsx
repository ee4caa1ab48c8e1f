export function DeletionsView() {
  return <section className="view" data-testid="deletions-view" />;
}
