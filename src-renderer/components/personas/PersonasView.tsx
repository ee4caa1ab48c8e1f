export function PersonasView() {
  return <section className="view" data-testid="personas-view" />;
}
