import { createContext, useContext } from 'react';
import type { Transport } from '../transport';

/** The window's transport, for views that keep their own store (inbound, compose, configure). */
export const TransportContext = createContext<Transport | null>(null);

export function useTransport(): Transport {
  const transport = useContext(TransportContext);
  if (!transport) throw new Error('useTransport outside <App>');
  return transport;
}
