export function ComposeView() {
  return <section className="view" data-testid="compose-view" />;
}
