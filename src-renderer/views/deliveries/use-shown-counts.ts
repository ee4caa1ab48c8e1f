import { useMemo } from 'react';
import type { DeliveryCounts } from '../../../src-shared/api';
import { useDeliveries } from '../../app/view-stores';
import { countsBesideList } from './list-words';

/** The counts the bar and the empty list say: exact from the list once it holds every match (countsBesideList). */
export function useShownCounts(): DeliveryCounts | null {
  const counts = useDeliveries((s) => s.counts);
  const loaded = useDeliveries((s) => s.loaded);
  const loading = useDeliveries((s) => s.loading);
  const hasOlder = useDeliveries((s) => s.hasOlder);
  const searched = useDeliveries((s) => s.searched);
  const atOldest = useDeliveries((s) => s.atOldest);
  const newWhilePaused = useDeliveries((s) => s.newWhilePaused);
  const shown = useDeliveries((s) => s.rows.length);
  return useMemo(
    () => countsBesideList(counts, { loaded, loading, hasOlder, searched, atOldest, newWhilePaused, shown }),
    [counts, loaded, loading, hasOlder, searched, atOldest, newWhilePaused, shown],
  );
}
