/**
 * What the comparison shows: the side picked first while the user chooses the second, and the two
 * deliveries read for the pair on screen. Kept for the window's life, like the other view stores.
 */
import { createStore } from 'zustand/vanilla';
import type { DeliveryDetail } from '../../../../src-shared/api';
import type { Transport } from '../../../transport';
import { messageOf, type ViewStore } from '../../../shared/live-store';
import type { CompareSide } from './diff';

export interface CompareState {
  /** The first side, waiting for the user to pick the second in the list. */
  picking: CompareSide | null;
  pair: [CompareSide, CompareSide] | null;
  /** The deliveries of the pair, once read. */
  details: [DeliveryDetail, DeliveryDetail] | null;
  error: string | null;
  startPick(side: CompareSide): void;
  cancelPick(): void;
  open(left: CompareSide, right: CompareSide): Promise<void>;
  close(): void;
}

export function createCompareStore(transport: Transport): ViewStore<CompareState> {
  let asked = 0;
  const store = createStore<CompareState>()((set) => ({
    picking: null,
    pair: null,
    details: null,
    error: null,
    startPick(side) {
      set({ picking: side });
    },
    cancelPick() {
      set({ picking: null });
    },
    async open(left, right) {
      const ask = ++asked;
      set({ picking: null, pair: [left, right], details: null, error: null });
      try {
        const [a, b] = await Promise.all([transport.call('getDelivery', left.deliveryId), transport.call('getDelivery', right.deliveryId)]);
        if (ask !== asked) return;
        if (!a || !b) {
          set({ error: `delivery #${!a ? left.deliveryId : right.deliveryId} is no longer in the log` });
          return;
        }
        set({ details: [a, b] });
      } catch (err) {
        if (ask === asked) set({ error: messageOf(err) });
      }
    },
    close() {
      asked++;
      set({ pair: null, details: null, error: null });
    },
  }));
  return { store, start: () => () => {} };
}
