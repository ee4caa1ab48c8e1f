export function InboundView() {
  return <section className="view" data-testid="inbound-view" />;
}
