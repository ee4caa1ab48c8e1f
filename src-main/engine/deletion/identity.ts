/**
 * Who a deletion request is about, and the pure checks that find that person in stored data.
 *
 * The user is their userId, plus the ids linked to it in the messages table: the anonymousIds that
 * arrived in the same call as the userId (an identify after sign-in ties the device's anonymousId
 * to the user) and the previousIds of alias calls made for the userId. A message belongs to the
 * user when its userId is theirs, or when it has no userId and its anonymousId is linked: the
 * anonymous activity before sign-in. A message with another userId is someone else's even if it
 * shares an anonymousId (a shared device), and a previousId that was itself a userId is not
 * followed further: one level of links, no identity graph.
 */
import { z } from 'zod';
import { parseOrThrow } from '../../../src-shared/settings';

export const MAX_USER_ID_LENGTH = 200;

export interface DeletionInput {
  userId: string;
  purge: boolean;
}

const USER_ID = 'is required: the userId to delete';

/** requestDeletion's param as it arrives from a transport. */
export const deletionInputSchema = z.strictObject(
  {
    userId: z
      .string({ error: USER_ID })
      .min(1, { error: USER_ID })
      .max(MAX_USER_ID_LENGTH, { error: `must be at most ${MAX_USER_ID_LENGTH} characters` }),
    purge: z.boolean({ error: 'must be true or false' }).optional(),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? 'is not a deletion field (expected userId, purge)' : 'must be an object { userId, purge? }') },
);

/** requestDeletion's param, checked field by field (a ValidationError under `deletion`). */
export function parseDeletionInput(input: unknown): DeletionInput {
  const { userId, purge } = parseOrThrow(deletionInputSchema, input, 'deletion');
  return { userId, purge: purge ?? false };
}

/** An id as the ingest reads it (ingest/normalize.ts): a non-empty string, or a number as its decimal text. */
function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

export interface Person {
  userId: string;
  /** anonymousIds and alias previousIds linked to the userId (never the userId itself). */
  linkedIds: ReadonlySet<string>;
}

/** A stored item's ids, whatever their type: idOf decides what counts as an id. */
const storedIdsSchema = z.looseObject({ userId: z.unknown().optional(), anonymousId: z.unknown().optional() });

/**
 * Whether a dropped item's raw JSON is about the person, by the same rule as messages: its userId
 * is theirs, or it has none and its anonymousId is linked. Parsed, not searched: "u1" must not
 * match "u10", nor a userId quoted inside some property.
 */
export function droppedItemNames(raw: string, person: Person): boolean {
  let item: unknown;
  try {
    item = JSON.parse(raw);
  } catch {
    return false;
  }
  const ids = storedIdsSchema.safeParse(item);
  if (!ids.success) return false;
  const userId = idOf(ids.data.userId);
  if (userId !== null) return userId === person.userId;
  const anonymousId = idOf(ids.data.anonymousId);
  return anonymousId !== null && person.linkedIds.has(anonymousId);
}

/**
 * Whether a Tracking API call's body as kept in Inbound names the person: any item of a batch (or
 * the single call) that droppedItemNames would accept. A body that does not parse (clipped, or
 * refused as bad JSON) names them when any of their ids appears in it at all: a deletion errs on
 * the side of removing.
 */
export function requestBodyNames(body: string, person: Person): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [person.userId, ...person.linkedIds].some((id) => body.includes(id) || body.includes(JSON.stringify(id).slice(1, -1)));
  }
  const batch = typeof parsed === 'object' && parsed !== null && 'batch' in parsed ? (parsed as { batch: unknown }).batch : undefined;
  const items: unknown[] = Array.isArray(batch) ? batch : [parsed];
  return items.some((item) => droppedItemNames(JSON.stringify(item) ?? 'null', person));
}

/** What String(n) gives for a finite number: the only ids a JSON number can stand for. */
const NUMBER_TEXT = /^-?\d+(\.\d+)?(e[+-]\d+)?$/;

/**
 * A cheap SQL pre-filter for droppedItemNames: the texts whose presence in the raw JSON the query
 * checks before parsing, or null when every row must be parsed. A string id is spelled in JSON as
 * its escaped text unless the raw uses other escapes, so rows with a backslash are parsed too; a
 * numeric-looking id may have arrived as a number spelled another way (1e3 for "1000"), so then
 * nothing is pre-filtered. Never drops a row droppedItemNames would accept.
 */
export function droppedItemNeedles(person: Person): string[] | null {
  const ids = [person.userId, ...person.linkedIds];
  if (ids.some((id) => NUMBER_TEXT.test(id))) return null;
  return ids.map((id) => JSON.stringify(id).slice(1, -1));
}
