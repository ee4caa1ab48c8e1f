/**
 * What the engine's thread and the read worker say to each other: plain data only (structured
 * clone), checked params in, the API's own results out.
 */
import type { DeliveryCounts, DeliverySummary, PageResult } from '../../../src-shared/api';
import type { DeliveryQueryFilter, DeliveryQueryPage } from '../store/delivery-views';
import type { RequestQueryFilter, RequestRow } from '../store/requests';
import type { ProfilePageArgs } from '../store/profiles';
import type { PurgePrefetch } from '../deletion/purge';
import type { AssertionDeliveryRow, AssertionMessageRow, CandidateBatch, DeliveryQueryExtra, IndexedCandidates, MessageQueryFilter } from '../store/assertions';
import type { TallyBlock, TallyFilter } from '../store/message-tallies';
import type { ProfileView } from '../../../src-shared/personas';
import type { ThreadPriority } from '../thread-priority';

export interface ReadOps {
  'deliveries.list': { args: DeliveryQueryPage; result: PageResult<DeliverySummary> };
  'deliveries.count': { args: DeliveryQueryFilter; result: DeliveryCounts };
  'requests.filteredPage': { args: { filter: RequestQueryFilter; beforeId: number; limit: number; oldest: boolean }; result: RequestRow[] };
  'profiles.page': { args: ProfilePageArgs; result: { items: ProfileView[]; next: string | null } };
  'deletion.warm': { args: PurgePrefetch; result: number };
  'assertions.match': { args: { value: string }; result: string | null };
  /** The tallies' blocks for a filter with the range they cover, read in one snapshot. */
  'tallies.blocks': { args: TallyFilter; result: { range: { below: number; through: number }; blocks: TallyBlock[] } };
  'assertions.messages': { args: { filter: MessageQueryFilter; afterId: number; limit: number; throughId: number }; result: AssertionMessageRow[] };
  'assertions.deliveries': {
    args: { filter: MessageQueryFilter; extra: DeliveryQueryExtra; afterId: number; limit: number; throughId: number; rareStatus: boolean };
    result: AssertionDeliveryRow[];
  };
  'assertions.countReceived': {
    args: { filter: MessageQueryFilter; since: number | null; until: number | null; afterId: number; throughId: number; max: number };
    result: number | null;
  };
  'assertions.receivedIds': { args: { since: number | null; until: number | null; afterId: number; throughId: number; max: number }; result: number[] | null };
  'assertions.among': { args: { check: MessageQueryFilter; ids: number[]; limit: number | null }; result: { rows: AssertionMessageRow[]; count: number } };
  'assertions.candidates': { args: { indexed: IndexedCandidates; after: number; through: number; max: number }; result: number[] };
  'assertions.candidateBatch': {
    args: { indexed: IndexedCandidates; after: number; through: number; max: number; check: MessageQueryFilter; limit: number | null };
    result: CandidateBatch;
  };
}

export type ReadOp = keyof ReadOps;
export type ReadArgs<K extends ReadOp> = ReadOps[K]['args'];
export type ReadResult<K extends ReadOp> = ReadOps[K]['result'];

export interface ReadRequest {
  id: number;
  op: ReadOp;
  args: unknown;
}

/** An error as it crossed the thread boundary: its class name, message and, for SQLite's, the code. */
export interface ReadFailure {
  name: string;
  message: string;
  code?: string;
}

export type ReadAnswer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: ReadFailure };

/** The worker's first word: its connection is open and it takes calls. */
export interface ReadReady {
  ready: true;
  /** The thread's lowered priority, or null where it runs at the engine's (not Linux). */
  priority: ThreadPriority | null;
}

export interface ReadWorkerData {
  dbPath: string;
  nativeBinding?: string;
  /** How long a text count walks the index (ms); COUNT_BUDGET_MS when absent. */
  countBudgetMs?: number;
  /** How long a Deliveries read through the log goes on before it answers how far it got (ms); READ_BUDGET_MS when absent. */
  readBudgetMs?: number | undefined;
  /** The thread's nice value (BACKGROUND_NICE when absent); null: left at the engine's. */
  nice?: number | null;
}

/** Pure: an error as plain data. */
export function failureOf(err: unknown): ReadFailure {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const code = (err as { code?: unknown }).code;
  return { name: err.name, message: err.message, ...(typeof code === 'string' ? { code } : {}) };
}
