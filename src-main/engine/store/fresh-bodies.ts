/**
 * The bodies of the deliveries a commit just made, kept in memory for the claim that follows it,
 * so the first round does not read back and unpack the bytes the commit has just packed.
 *
 * Only ever a shortcut to the stored bytes, never another version of them: temporary triggers on
 * the engine's connection drop a delivery's entry whenever a row with its id is inserted, deleted
 * or has its body rewritten, whatever wrote it. A commit puts its entries back after its own
 * inserts. So an entry can outlive its row only while no row has that id (a rolled-back insert, a
 * purge), and it is gone before any other delivery takes the id.
 */
import type { Db } from './database';

/** Past this many entries (a scheduler that stopped claiming: a full disk), they are dropped. */
const MOST = 10_000;

export interface FreshBodies {
  /** The body the commit stored for delivery `id`. */
  keep(id: number, body: Uint8Array): void;
  /** The body kept for delivery `id`, once; undefined when none is kept. */
  take(id: number): Buffer | undefined;
}

const FORGET_FUNCTION = 'hookbench_forget_fresh_body';
const byConnection = new WeakMap<Db, FreshBodies>();

export function freshBodiesOf(db: Db): FreshBodies {
  const known = byConnection.get(db);
  if (known) return known;
  const bodies = new Map<number, Buffer>();
  db.function(FORGET_FUNCTION, { deterministic: false, varargs: false }, (id: unknown) => {
    bodies.delete(Number(id));
    return null;
  });
  db.exec(`
    CREATE TEMP TRIGGER IF NOT EXISTS fresh_body_insert AFTER INSERT ON main.deliveries BEGIN SELECT ${FORGET_FUNCTION}(NEW.id); END;
    CREATE TEMP TRIGGER IF NOT EXISTS fresh_body_delete AFTER DELETE ON main.deliveries BEGIN SELECT ${FORGET_FUNCTION}(OLD.id); END;
    CREATE TEMP TRIGGER IF NOT EXISTS fresh_body_update AFTER UPDATE OF id, body, body_format, message_id ON main.deliveries BEGIN
      SELECT ${FORGET_FUNCTION}(OLD.id); SELECT ${FORGET_FUNCTION}(NEW.id);
    END;
  `);
  const fresh: FreshBodies = {
    keep(id, body) {
      if (bodies.size >= MOST) bodies.clear();
      // Readers get a Buffer, as a row read from the file gives one; a view, not a copy.
      bodies.set(id, Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    },
    take(id) {
      const body = bodies.get(id);
      if (body !== undefined) bodies.delete(id);
      return body;
    },
  };
  byConnection.set(db, fresh);
  return fresh;
}
