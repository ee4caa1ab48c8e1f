// Renderer shell: the workbench views arrive with the UI issue.
const root = document.getElementById('root');
const ingest = new URLSearchParams(location.search).get('ingest') ?? 'http://127.0.0.1:4545';
if (root) {
  root.textContent = `Hookbench is receiving on ${ingest}/v1/batch`;
}
