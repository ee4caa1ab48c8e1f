export function ConfigureView() {
  return <section className="view" data-testid="configure-view" />;
}
