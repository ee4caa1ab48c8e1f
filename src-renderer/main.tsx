import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, NoTransport } from './components/App';
import { sharedTransport } from './live';
import { createDeliveriesStore } from './store';
import { pickTransport } from './transport';
import './styles.css';
import './components/inbound/inbound.css';
import './components/compose/compose.css';
import './components/configure/configure.css';
import './components/inspect.css';
import './components/watch.css';
import './components/personas/personas.css';
import './components/deletions/deletions.css';

const element = document.getElementById('root');
if (!element) throw new Error('index.html has no #root');
const picked = pickTransport(location.search);
const root = createRoot(element);
if ('problem' in picked) {
  root.render(<NoTransport problem={picked.problem} />);
} else {
  const transport = sharedTransport(picked.transport);
  const deliveries = createDeliveriesStore(transport);
  deliveries.start();
  root.render(
    <StrictMode>
      <App store={deliveries.store} transport={transport} />
    </StrictMode>,
  );
}
