import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, NoTransport } from './components/App';
import { createDeliveriesStore } from './store';
import { pickTransport } from './transport';
import './styles.css';

const element = document.getElementById('root');
if (!element) throw new Error('index.html has no #root');
const picked = pickTransport(location.search);
const root = createRoot(element);
if ('problem' in picked) {
  root.render(<NoTransport problem={picked.problem} />);
} else {
  const deliveries = createDeliveriesStore(picked.transport);
  deliveries.start();
  root.render(
    <StrictMode>
      <App store={deliveries.store} />
    </StrictMode>,
  );
}
