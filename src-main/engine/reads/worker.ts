/**
 * The read worker's entry: a thread with its own read-only connection to the engine's log, for
 * the reads that may take long (wide filters, their counts, Inbound's filtered pages, pages of
 * profiles), and the reads ahead of a deletion that bring its rows' pages into memory. It runs the same store reads and the same query code as the engine's thread, each
 * call in one read transaction, one call at a time; a scan reads its whole range in one
 * statement, since nothing else waits for this thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { inReadSnapshot, openReadOnly } from '../store/database';
import { DeliveryViewStore } from '../store/delivery-views';
import { RequestStore } from '../store/requests';
import { ProfileStore } from '../store/profiles';
import { DeletionStore } from '../store/deletions';
import { AssertionStore } from '../store/assertions';
import { MessageTallyStore } from '../store/message-tallies';
import { atOnce, createDeliveryReads } from '../api/deliveries';
import { lowerThisThreadsPriority } from '../thread-priority';
import { failureOf, type ReadAnswer, type ReadArgs, type ReadOp, type ReadReady, type ReadRequest, type ReadResult, type ReadWorkerData } from './protocol';

const port = parentPort;
if (port === null) throw new Error('the read worker runs on a worker thread');
const data = workerData as ReadWorkerData;
// Its reads wait while the engine's thread has work: a busy machine answers ingest first.
const priority = data.nice === null ? null : lowerThisThreadsPriority(data.nice);
const db = openReadOnly(data.dbPath, { nativeBinding: data.nativeBinding });
const deliveryViews = new DeliveryViewStore(db);
const deliveries = createDeliveryReads(deliveryViews, atOnce, {
  ...(data.countBudgetMs === undefined ? {} : { countBudgetMs: data.countBudgetMs }),
  ...(data.readBudgetMs === undefined ? {} : { readBudgetMs: data.readBudgetMs }),
});
const requests = new RequestStore(db);
const assertions = new AssertionStore(db);
const tallies = new MessageTallyStore(db);
const profiles = new ProfileStore(db);
const deletions = new DeletionStore(db);

const handlers: { [K in ReadOp]: (args: ReadArgs<K>) => Promise<ReadResult<K>> } = {
  'deliveries.list': (p) => deliveries.list(p),
  'deliveries.count': (f) => deliveries.count(f),
  'requests.filteredPage': async ({ filter, beforeId, limit, oldest }) => requests.filteredPage(filter, beforeId, limit, oldest),
  'profiles.page': async (page) => profiles.readPage(page),
  'deletion.warm': async (next) => deletions.warm(next),
  'assertions.match': async ({ value }) => deliveryViews.exactValueMatch(value),
  'tallies.blocks': async (filter) => ({ range: tallies.range(), blocks: tallies.blocks(filter) }),
  'assertions.messages': async ({ filter, afterId, limit, throughId }) => assertions.messages(filter, afterId, limit, throughId),
  'assertions.deliveries': async ({ filter, extra, afterId, limit, throughId, rareStatus }) => assertions.deliveries(filter, extra, afterId, limit, throughId, rareStatus),
  'assertions.countReceived': async ({ filter, since, until, afterId, throughId, max }) => assertions.countReceived(filter, since, until, afterId, throughId, max),
  'assertions.receivedIds': async ({ since, until, afterId, throughId, max }) => assertions.receivedIds(since, until, afterId, throughId, max),
  'assertions.among': async ({ check, ids, limit }) => assertions.among(check, ids, limit),
  'assertions.candidates': async ({ indexed, after, through, max }) => assertions.candidateIds(indexed, after, through, max),
  'assertions.candidateBatch': async ({ indexed, after, through, max, check, limit }) => assertions.candidateBatch(indexed, after, through, max, check, limit),
};

async function answer(request: ReadRequest): Promise<ReadAnswer> {
  try {
    const handler = handlers[request.op] as (args: unknown) => Promise<unknown>;
    if (handler === undefined) throw new Error(`the read worker has no operation "${request.op}"`);
    return { id: request.id, ok: true, value: await inReadSnapshot(db, () => handler(request.args)) };
  } catch (err) {
    return { id: request.id, ok: false, error: failureOf(err) };
  }
}

// One call at a time: a call's read transaction must not take in another's statements.
let queue: Promise<void> = Promise.resolve();
port.on('message', (request: ReadRequest) => {
  queue = queue.then(async () => port.postMessage(await answer(request)));
});
port.postMessage({ ready: true, priority } satisfies ReadReady);
