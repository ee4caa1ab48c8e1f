import { useIncrementalVacuum, type Db } from './database';
import { ConfigStore, type SecretSealer } from './config-store';
import { LogStore } from './log-store';
import { ProfileStore } from './profiles';
import { ComputationStore } from './computations';
import { DeletionStore } from './deletions';
import { RetentionStore } from './retention';
import { DeliveryViewStore } from './delivery-views';
import { RequestStore } from './requests';
import { ReceiverStore } from './receivers';
import { AssertionStore } from './assertions';
import { SearchIndexStore } from './search-index';
import { MessageTallyStore } from './message-tallies';
import { rareStatusStore } from './rare-statuses';
import { attemptUrlRangeStore } from './attempt-url-ranges';
import { messageTimeStore, type MessageTimeStore } from './message-times';
import type { BackfillBelow } from './backfill-below';

/** Runs fn in one transaction; inside another one it becomes a savepoint of it. */
export type Transaction = <T>(fn: () => T) => T;

/**
 * Every store of one engine, over one connection: the only way the rest of the engine reaches
 * the data. Nothing outside src-main/engine/store sees the connection itself.
 */
export interface Stores {
  /** Accepted messages with their deliveries and attempts: the delivery queue. */
  readonly log: LogStore;
  /** Tracking API requests and their dropped items, as the Inbound view reads them. */
  readonly requests: RequestStore;
  /** The Deliveries view's filtered pages, summaries and detail rows. */
  readonly deliveryViews: DeliveryViewStore;
  /** What the free-text search index is owed by the latest commits. */
  readonly searchIndex: SearchIndexStore;
  /** Messages per block of ids by type, event and source, for the assertions' filters. */
  readonly tallies: MessageTallyStore;
  /** The deliveries that are retrying, failed or discarded, for the assertions' status filters. */
  readonly rareStatuses: BackfillBelow;
  /** The range of delivery ids each attempt URL was attempted for (schema 31). */
  readonly attemptUrlRanges: BackfillBelow;
  /** Every message's time of receipt, for the assertions' since and until. */
  readonly messageTimes: MessageTimeStore;
  /** Sources, destinations and settings. */
  readonly config: ConfigStore;
  readonly profiles: ProfileStore;
  readonly computations: ComputationStore;
  readonly deletions: DeletionStore;
  readonly retention: RetentionStore;
  /** Test receivers and the requests they got. */
  readonly receivers: ReceiverStore;
  /** Tests' assertions: messages and deliveries by exact field values, and markers in the log. */
  readonly assertions: AssertionStore;
  readonly transaction: Transaction;
  /** Whether a transaction is open now (a hook called from inside one can tell). */
  inTransaction(): boolean;
  /**
   * With nothing else using the file: converts an older file to incremental vacuum when it is
   * small enough, and cuts the WAL back to nothing.
   */
  compactFile(): void;
  /**
   * Takes up to `max` of the messages commits left owed into the search index, the profiles and the tallies
   * (one transaction each); true when nothing is owed any more. The engine's follow-up runs it in
   * slices; stopping, and a seed, run it until it is true.
   */
  takeInOwed(max: number): boolean;
  /**
   * The id through which every committed message is in the search index, the tallies and the
   * profiles (while the profiles read a backlog of their own, they do not count): what is above
   * it, up to the log's newest id, is owed.
   */
  takenInThrough(): number;
}

export function createStores(db: Db, secrets?: SecretSealer, options: { searchIndexPartMessages?: number | undefined } = {}): Stores {
  const log = new LogStore(db);
  const profiles = new ProfileStore(db);
  const searchIndex = new SearchIndexStore(db, options.searchIndexPartMessages);
  const messageTimes = messageTimeStore(db);
  const tallies = new MessageTallyStore(db, (after, through) => messageTimes.takeIn(after, through));
  // A commit leaves its messages owed to the profiles, the search index and the tallies, which
  // take them in a turn later (the engine's follow-up); the first two also before their next read.
  log.followCommits((first) => {
    profiles.followCommit(first);
    searchIndex.followCommit(first);
    tallies.followCommit(first);
  });
  return {
    log,
    requests: new RequestStore(db),
    deliveryViews: new DeliveryViewStore(db, () => searchIndex.settle()),
    searchIndex,
    tallies,
    rareStatuses: rareStatusStore(db),
    attemptUrlRanges: attemptUrlRangeStore(db),
    messageTimes,
    config: new ConfigStore(db, secrets),
    profiles,
    computations: new ComputationStore(db),
    deletions: new DeletionStore(db),
    retention: new RetentionStore(db),
    receivers: new ReceiverStore(db),
    assertions: new AssertionStore(db),
    transaction: (fn) => db.transaction(fn)(),
    inTransaction: () => db.inTransaction,
    compactFile: () => {
      useIncrementalVacuum(db);
      db.pragma('wal_checkpoint(TRUNCATE)');
    },
    takeInOwed: (max) => {
      // The index and the tallies read the same new rows: one transaction for both (a commit each cost more than the tallies).
      const [indexed, tallied] = db.transaction((): [boolean, boolean] => [searchIndex.indexOwed(max), tallies.tallyOwed(max)])();
      return profiles.followOwed(max) && indexed && tallied;
    },
    takenInThrough: () => {
      const through = Math.min(searchIndex.through(), tallies.range().through);
      return profiles.isCurrent() ? Math.min(through, profiles.cursor()) : through;
    },
  };
}
