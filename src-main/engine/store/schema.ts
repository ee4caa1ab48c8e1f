/**
 * Versioned migrations, applied in order and recorded in PRAGMA user_version. Append only: a
 * migration that shipped is never edited, a change is a new entry.
 */
export const MIGRATIONS: readonly string[] = [
  /* 1: sources, destinations, inbound log, deliveries and attempts */ `
  CREATE TABLE sources (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    write_key TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE destinations (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    enabled INTEGER NOT NULL DEFAULT 1,
    shared_secret TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE destination_sources (
    destination_id INTEGER NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    PRIMARY KEY (destination_id, source_id)
  ) WITHOUT ROWID;
  CREATE TABLE webhook_entries (
    id INTEGER PRIMARY KEY,
    destination_id INTEGER NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    url TEXT NOT NULL,
    headers TEXT NOT NULL DEFAULT '{}'
  );
  CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

  -- One row per HTTP call to the Tracking API, accepted or refused.
  CREATE TABLE requests (
    id INTEGER PRIMARY KEY,
    source_id INTEGER,
    path TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    http_status INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    items INTEGER NOT NULL DEFAULT 0,
    accepted INTEGER NOT NULL DEFAULT 0,
    dropped INTEGER NOT NULL DEFAULT 0,
    duplicates INTEGER NOT NULL DEFAULT 0,
    user_agent TEXT,
    error_code TEXT,
    error_text TEXT
  );
  CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL,
    request_id INTEGER NOT NULL,
    message_id TEXT NOT NULL,
    -- Equal to message_id while the message is inside its 24 h dedupe window; cleared once a
    -- later copy outside the window is accepted, so the unique index only spans the window.
    dedupe_key TEXT,
    type TEXT NOT NULL,
    user_id TEXT,
    anonymous_id TEXT,
    event TEXT,
    received_at INTEGER NOT NULL,
    json TEXT NOT NULL
  );
  CREATE UNIQUE INDEX messages_dedupe ON messages (source_id, dedupe_key);
  -- Items of an accepted request that were not turned into messages: invalid ones and duplicates.
  CREATE TABLE dropped_items (
    id INTEGER PRIMARY KEY,
    request_id INTEGER NOT NULL,
    item_index INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('invalid', 'duplicate')),
    reason TEXT NOT NULL,
    raw TEXT NOT NULL
  );
  CREATE INDEX dropped_items_request ON dropped_items (request_id);

  CREATE TABLE deliveries (
    id INTEGER PRIMARY KEY,
    message_id INTEGER REFERENCES messages(id),
    destination_id INTEGER NOT NULL,
    payload_type TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'in_flight', 'succeeded', 'retrying', 'failed', 'discarded')),
    -- The exact bytes signed and sent: mapped once, at the first round, then never re-serialized.
    body BLOB,
    -- A replay sent to one URL instead of the destination's entries.
    target_url TEXT,
    replay_of INTEGER REFERENCES deliveries(id),
    edited INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    first_attempt_at INTEGER,
    next_attempt_at INTEGER,
    rounds INTEGER NOT NULL DEFAULT 0,
    -- JSON list of the URLs still to try; NULL means every entry of the destination.
    pending_urls TEXT,
    last_http_status INTEGER,
    last_error TEXT,
    finished_at INTEGER
  );
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
  CREATE INDEX deliveries_message ON deliveries (message_id);

  CREATE TABLE attempts (
    id INTEGER PRIMARY KEY,
    delivery_id INTEGER NOT NULL REFERENCES deliveries(id),
    round INTEGER NOT NULL,
    url TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'done', 'interrupted')),
    verdict TEXT,
    http_status INTEGER,
    request_headers TEXT NOT NULL,
    timings TEXT,
    response_headers TEXT,
    response_body BLOB,
    response_bytes INTEGER,
    response_truncated INTEGER,
    error_kind TEXT,
    error_text TEXT,
    retry_after_ms INTEGER
  );
  CREATE INDEX attempts_delivery ON attempts (delivery_id);
  CREATE INDEX attempts_in_flight ON attempts (state) WHERE state = 'in_flight';
  `,
  /* 2: the Deliveries view's lookups at 100,000 rows (measured with EXPLAIN QUERY PLAN: without
     these, a page's replay ids scanned the whole table per row, about 5 ms each). No index on
     status: every delivery changes status three times, and such an index cut the delivery bench's
     ratio from about 0.5 to 0.3, while a rare-status page without it scans in about 9 ms. */ `
  CREATE INDEX deliveries_replay_of ON deliveries (replay_of) WHERE replay_of IS NOT NULL;
  CREATE INDEX webhook_entries_destination ON webhook_entries (destination_id);
  `,
  /* 3: the Inbound view's messages of one request (measured at 100,000 messages: a scan of 60 to
     190 ms per selected call without it) */ `
  CREATE INDEX messages_request ON messages (request_id);
  `,
  /* 4: deletion requests and their delete notices (src-main/engine/deletion). A notice is an
     ordinary delivery (message_id NULL, its bytes prebuilt) linked here to its request and to the
     source and destination names it was made for. A purge leaves these rows, on purpose: they are
     the record that the user asked and that the notices went out. */ `
  CREATE TABLE deletion_requests (
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    purge INTEGER NOT NULL CHECK (purge IN (0, 1)),
    status TEXT NOT NULL CHECK (status IN ('pending', 'forwarded', 'failed')),
    -- JSON list of the names of the sources that held messages of the user when it was asked.
    affected_sources TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    purged_at INTEGER
  );
  CREATE TABLE deletion_notices (
    delivery_id INTEGER PRIMARY KEY REFERENCES deliveries(id),
    request_id INTEGER NOT NULL REFERENCES deletion_requests(id),
    source_name TEXT NOT NULL,
    destination_name TEXT NOT NULL
  );
  CREATE INDEX deletion_notices_request ON deletion_notices (request_id);
  `,
  /* 5: profiles, computed traits, audiences and their syncs (src-main/engine/personas). Profiles are
     built lazily from the message log up to a cursor (persona_cursor), never on the ingest path.
     persona_synced holds what the destinations were last told per computation and profile (audiences:
     a row per member; traits: the value), so a sync sends only the differences. */ `
  CREATE TABLE persona_cursor (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    last_message_id INTEGER NOT NULL
  );
  INSERT INTO persona_cursor (id, last_message_id) VALUES (1, 0);
  CREATE TABLE persona_profiles (
    profile_id TEXT PRIMARY KEY,
    user_id TEXT,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  -- Every id (userId, anonymousId, alias previousId) → the profile it belongs to.
  CREATE TABLE persona_ids (
    id TEXT PRIMARY KEY,
    profile_id TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX persona_ids_profile ON persona_ids (profile_id);
  -- Identify traits; seq is the messages.id that set the value (the later message wins, also across merges).
  CREATE TABLE persona_traits (
    profile_id TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (profile_id, key)
  ) WITHOUT ROWID;
  -- One row per track call: its messages.id, timestamp (ms) and properties (NULL when empty).
  CREATE TABLE persona_tracks (
    message_id INTEGER PRIMARY KEY,
    profile_id TEXT NOT NULL,
    event TEXT NOT NULL,
    at INTEGER NOT NULL,
    properties TEXT
  );
  CREATE INDEX persona_tracks_profile ON persona_tracks (profile_id, event, at);
  CREATE INDEX persona_tracks_event ON persona_tracks (event);
  CREATE TABLE persona_computations (
    id INTEGER PRIMARY KEY,
    class TEXT NOT NULL CHECK (class IN ('audience', 'trait')),
    name TEXT NOT NULL,
    key TEXT NOT NULL,
    -- The space: a source's name.
    space TEXT NOT NULL,
    -- JSON: the audience's condition or the trait's rule.
    definition TEXT NOT NULL,
    sync_every_minutes INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (space, key)
  );
  CREATE TABLE persona_synced (
    computation_id INTEGER NOT NULL REFERENCES persona_computations(id) ON DELETE CASCADE,
    profile_id TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (computation_id, profile_id)
  ) WITHOUT ROWID;
  CREATE INDEX persona_synced_profile ON persona_synced (profile_id);
  CREATE TABLE persona_syncs (
    id INTEGER PRIMARY KEY,
    computation_id INTEGER NOT NULL REFERENCES persona_computations(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('initial', 'incremental')),
    started_at INTEGER NOT NULL,
    entered INTEGER NOT NULL,
    exited INTEGER NOT NULL,
    changed INTEGER NOT NULL,
    sent INTEGER NOT NULL,
    -- The Inbound request carrying the identify calls; NULL when nothing was sent.
    request_id INTEGER
  );
  CREATE INDEX persona_syncs_computation ON persona_syncs (computation_id, id);
  `,
  /* 6: what ingest could not use in an accepted message (a field of the wrong JSON type, left out;
     a number turned into a string; an unreadable sentAt): a JSON list of {field, problem, value},
     NULL when there was nothing. Kept beside the message so its stored JSON, which is what the
     destinations receive, stays exactly what it was. */ `
  ALTER TABLE messages ADD COLUMN warnings TEXT;
  `,
  /* 7: decisions as data. An attempt's failure (its kind and the parameters its words are made
     from) and the decision taken after a delivery's last round (retry, give up, not sent, and why),
     as JSON records; NULL on rows written before, which are read from their words. */ `
  ALTER TABLE attempts ADD COLUMN failure TEXT;
  ALTER TABLE deliveries ADD COLUMN decision TEXT;
  `,
  /* 8: how a destination's requests are signed (a scheme name; every destination made before
     signs with X-Signature). */ `
  ALTER TABLE destinations ADD COLUMN signing TEXT NOT NULL DEFAULT 'x-signature';
  `,
  /* 9: time-warp. A destination's factor (1 = real time) and the factor each delivery was created
     with: the delivery keeps it, so switching the destination's warp off later does not rewrite the
     times of deliveries already under way. */ `
  ALTER TABLE destinations ADD COLUMN warp INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE deliveries ADD COLUMN warp INTEGER NOT NULL DEFAULT 1;
  `,
  /* 10: a webhook URL can be switched off without being removed: kept with its headers, not sent to. */ `
  ALTER TABLE webhook_entries ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1;
  `,
  /* 11: each attempt's request as it went on the wire (a JSON list of [name, value] in the order
     written, Host and Content-Length included; NULL when no request was written, and on attempts
     made before), and test events (a delivery made from a sample, not from an accepted call). */ `
  ALTER TABLE attempts ADD COLUMN sent_headers TEXT;
  ALTER TABLE deliveries ADD COLUMN test INTEGER NOT NULL DEFAULT 0;
  `,
  /* 12: test receivers (a name and a response script, with the position the next request takes)
     and every request they got, byte for byte: headers as received (a JSON list of [name, value]
     in order), the body, the step that answered, how it ended, and the signature checks of the
     destinations pointing at the receiver (JSON). */ `
  CREATE TABLE receivers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    script TEXT NOT NULL,
    next_index INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE receiver_requests (
    id INTEGER PRIMARY KEY,
    receiver_id INTEGER NOT NULL REFERENCES receivers(id) ON DELETE CASCADE,
    received_at INTEGER NOT NULL,
    tls INTEGER NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    headers TEXT NOT NULL,
    body BLOB NOT NULL,
    body_bytes INTEGER NOT NULL,
    body_ms INTEGER NOT NULL,
    step INTEGER NOT NULL,
    signatures TEXT NOT NULL,
    outcome TEXT NOT NULL DEFAULT 'pending',
    status INTEGER,
    answered_at INTEGER
  );
  CREATE INDEX receiver_requests_receiver ON receiver_requests (receiver_id, id);
  `,
  /* 13: a user's messages by index (a deletion's footprint and purge, which otherwise read the
     whole messages table several times: 1.5 s at 1M messages). One index serves both halves of
     "the user's messages": user_id = ?, and user_id IS NULL AND anonymous_id IN (the linked ids).
     Its cost on the write path is measured in docs/scale.md.
     And the deliveries counted by status, kept by triggers as rows are added, move and go: the
     status bar, the health check and every count by status read a handful of rows instead of
     counting the whole log (0.3 s at 1M). Filled once here from what the log holds. */ `
  CREATE INDEX IF NOT EXISTS messages_user ON messages (user_id, anonymous_id);
  CREATE TABLE delivery_status_counts (
    status TEXT PRIMARY KEY,
    n INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO delivery_status_counts (status, n) SELECT status, COUNT(*) FROM deliveries GROUP BY status;
  CREATE TRIGGER delivery_status_counts_insert AFTER INSERT ON deliveries BEGIN
    INSERT INTO delivery_status_counts (status, n) VALUES (NEW.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER delivery_status_counts_update AFTER UPDATE OF status ON deliveries WHEN OLD.status IS NOT NEW.status BEGIN
    UPDATE delivery_status_counts SET n = n - 1 WHERE status = OLD.status;
    INSERT INTO delivery_status_counts (status, n) VALUES (NEW.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER delivery_status_counts_delete AFTER DELETE ON deliveries BEGIN
    UPDATE delivery_status_counts SET n = n - 1 WHERE status = OLD.status;
  END;
  -- Every URL an attempt was ever sent to (a handful), and the replays sent to one URL: a URL
  -- filter first asks these whether anything can match, so a filter that matches nothing (a typo)
  -- answers at once instead of reading every delivery's attempts.
  CREATE TABLE attempt_urls (url TEXT PRIMARY KEY) WITHOUT ROWID;
  INSERT OR IGNORE INTO attempt_urls (url) SELECT url FROM attempts;
  CREATE TRIGGER attempt_urls_insert AFTER INSERT ON attempts BEGIN
    INSERT OR IGNORE INTO attempt_urls (url) VALUES (NEW.url);
  END;
  CREATE INDEX deliveries_target ON deliveries (target_url) WHERE target_url IS NOT NULL;
  `,
  /* 14: assertions from tests. A message's tracking-plan violations (a JSON list of {path, rule,
     value}, NULL when it passed or no plan applied), kept beside it like its warnings. Markers:
     named points in the log (the last message and delivery ids when marked) that a test run
     filters from, so it sees only what came after its own mark. */ `
  ALTER TABLE messages ADD COLUMN violations TEXT;
  CREATE TABLE log_markers (
    name TEXT PRIMARY KEY,
    message_id INTEGER NOT NULL,
    delivery_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  /* 15: Inbound as an inspector. Each Tracking API call's headers as received (a JSON object,
     credentials masked) and its body as text, cut to a bound (body_clipped = 1 when it was; 2 when a deletion's purge removed it), so a
     call can be read as it arrived, refused ones included. Rows from before carry neither. The
     time index serves Inbound's time range. */ `
  ALTER TABLE requests ADD COLUMN headers TEXT;
  ALTER TABLE requests ADD COLUMN body TEXT;
  ALTER TABLE requests ADD COLUMN body_clipped INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX requests_received ON requests (received_at);
  `,
  /* 16: free text found by index. The four fields the search looks in, as trigrams (any substring
     of three characters or more, case folded), contentless so the text is not stored twice; kept by
     triggers as messages come and go. A log that already holds messages is indexed afterwards in
     slices, newest first (doing it here would hold start-up for minutes on a big log):
     message_text_backfill.below is the id under which messages are not indexed yet, 0 when done. */ `
  CREATE VIRTUAL TABLE message_text USING fts5(
    user_id, anonymous_id, event, message_id,
    content = '', contentless_delete = 1, tokenize = 'trigram'
  );
  CREATE TABLE message_text_backfill (below INTEGER NOT NULL);
  INSERT INTO message_text_backfill (below) SELECT COALESCE(MAX(id) + 1, 0) FROM messages;
  CREATE TRIGGER message_text_insert AFTER INSERT ON messages BEGIN
    INSERT INTO message_text (rowid, user_id, anonymous_id, event, message_id)
    VALUES (NEW.id, NEW.user_id, NEW.anonymous_id, NEW.event, NEW.message_id);
  END;
  CREATE TRIGGER message_text_delete AFTER DELETE ON messages BEGIN
    DELETE FROM message_text WHERE rowid = OLD.id;
  END;
  `,
  /* 17: profiles kept current at commit. What the profile view and the audience preview read of a
     profile's track calls, one row per profile and event: how many, the first and last timestamps,
     and the last call (by timestamp, then message order) with its properties. Kept with
     persona_tracks by the same writes; built here from the tracks already read (cheap: one pass
     over persona_tracks, not the log). Keyed by event first: a preview reads one event for every
     profile as one range, the profile view one profile's few rows through the second index. */ `
  CREATE TABLE persona_events (
    profile_id TEXT NOT NULL,
    event TEXT NOT NULL,
    n INTEGER NOT NULL,
    first_at INTEGER NOT NULL,
    last_at INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    last_properties TEXT,
    PRIMARY KEY (event, profile_id)
  ) WITHOUT ROWID;
  CREATE INDEX persona_events_profile ON persona_events (profile_id);
  -- A definition's traits for every profile, read from the index alone (values are short JSON).
  CREATE INDEX persona_traits_key ON persona_traits (key, profile_id, value);
  INSERT INTO persona_events (profile_id, event, n, first_at, last_at, last_seq, last_properties)
    SELECT profile_id, event, n, first_at, at, message_id, properties FROM (
      SELECT profile_id, event, at, message_id, properties,
        COUNT(*) OVER w AS n, MIN(at) OVER w AS first_at,
        ROW_NUMBER() OVER (PARTITION BY profile_id, event ORDER BY at DESC, message_id DESC) AS r
      FROM persona_tracks WINDOW w AS (PARTITION BY profile_id, event))
    WHERE r = 1;
  `,
  /* 18: smaller on disk. A delivery's body may be stored packed (body_format 1: raw deflate with its
     message's JSON as the dictionary; store/body-pack.ts): bodies written from now on are packed as
     they are written, the ones already in the log after start, in slices, newest first, under
     delivery_pack_backfill.below (0 when done); adding the column rewrites nothing. And the search
     index stops taking the messageId: random and unique to each message, its trigrams were half
     the index and a third of its cost on ingest; a messageId is found by exact or prefix lookup in
     messages_dedupe instead. The index keeps its four columns, the last left empty from here on:
     making it again without it would mean dropping it, which reads every page of it (seconds at
     10M messages, holding start-up), so the messageIds already in it leave with their messages.
     A search never trusts that column: what it finds there is checked against the message. */ `
  ALTER TABLE deliveries ADD COLUMN body_format INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE delivery_pack_backfill (below INTEGER NOT NULL);
  INSERT INTO delivery_pack_backfill (below) SELECT COALESCE(MAX(id) + 1, 0) FROM deliveries;
  DROP TRIGGER message_text_insert;
  CREATE TRIGGER message_text_insert AFTER INSERT ON messages BEGIN
    INSERT INTO message_text (rowid, user_id, anonymous_id, event) VALUES (NEW.id, NEW.user_id, NEW.anonymous_id, NEW.event);
  END;
  `,
  /* 19: receiver scripts counted per message. per: what the script counts ('receiver', every
     request; 'message', each message key's own requests). epoch: bumped by Reset and by a changed
     script and stamped on each request, so "since the last reset" is one value rather than an id
     boundary (ids of removed requests may be given out again after Clear log). Each request's
     message key (webhook-id header, else the body's messageId) and its try number among the
     requests with that key in its epoch. The partial index makes that count a range of the
     requests that have a key; rows from before have none, so it starts empty. */ `
  ALTER TABLE receivers ADD COLUMN per TEXT NOT NULL DEFAULT 'receiver';
  ALTER TABLE receivers ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE receiver_requests ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE receiver_requests ADD COLUMN message_key TEXT;
  ALTER TABLE receiver_requests ADD COLUMN message_try INTEGER;
  CREATE INDEX receiver_requests_message ON receiver_requests (receiver_id, epoch, message_key) WHERE message_key IS NOT NULL;
  `,
  /* 20: a commit no longer writes its messages' trigrams: the insert trigger cost as much as the
     rest of the commit (its trigrams, and a new segment for each transaction of ten messages).
     The engine indexes the messages above message_text_top.through a turn later, many at a time,
     and every text search takes in that tail first (store/search-index.ts). Everything up to
     the log's newest message now was indexed by the trigger, or is below the old backfill. */ `
  DROP TRIGGER message_text_insert;
  CREATE TABLE message_text_top (through INTEGER NOT NULL);
  INSERT INTO message_text_top (through) SELECT COALESCE(MAX(id), 0) FROM messages;
  `,
  /* 21: a sync's deliveries counted when it is logged. A sync of 50,000 members causes 50,000
     deliveries; its summary lists the first few and gives the count from here rather than reading
     them all on every list of computations. NULL for the syncs logged before: counted when read. */ `
  ALTER TABLE persona_syncs ADD COLUMN deliveries INTEGER;
  `,
  /* 22: a receiver's request count kept as its requests come and go. It was counted from its
     requests on every read, and every request a receiver takes reads its receiver: a receiver
     that had taken 300,000 requests spent about 7 ms of the engine's thread on each new one.
     Counted once here (one pass over the receivers' index). */ `
  ALTER TABLE receivers ADD COLUMN requests INTEGER NOT NULL DEFAULT 0;
  UPDATE receivers SET requests = (SELECT COUNT(*) FROM receiver_requests q WHERE q.receiver_id = receivers.id);
  CREATE TRIGGER receiver_requests_count_insert AFTER INSERT ON receiver_requests BEGIN
    UPDATE receivers SET requests = requests + 1 WHERE id = NEW.receiver_id;
  END;
  CREATE TRIGGER receiver_requests_count_delete AFTER DELETE ON receiver_requests BEGIN
    UPDATE receivers SET requests = requests - 1 WHERE id = OLD.receiver_id;
  END;
  `,
  /* 23: message tallies (store/message-tallies.ts): how many messages of each type, event and
     source a block of 16,384 message ids holds, how many of them have violations, and when the
     first and the last of them arrived. A test's filter on those fields without a marker read the
     whole log (1.1 s at 1M); with these it reads only the blocks that hold a match, and counts
     whole blocks from here. Ids in [below, through] are tallied: the engine tallies the newest a
     turn after their commit (through), and a log that existed before, downwards, a slice at a time
     in the background (below). Removal is counted here by the trigger, so a purge, retention or
     Clear log keep the tallies exact. */ `
  CREATE TABLE message_tallies (
    type TEXT NOT NULL,
    -- '' for a message without an event.
    event TEXT NOT NULL,
    source_id INTEGER NOT NULL,
    block INTEGER NOT NULL,
    messages INTEGER NOT NULL,
    violating INTEGER NOT NULL,
    -- The violations those messages carry, all together.
    violation_items INTEGER NOT NULL,
    first_at INTEGER NOT NULL,
    last_at INTEGER NOT NULL,
    PRIMARY KEY (type, event, source_id, block)
  ) WITHOUT ROWID;
  CREATE TABLE message_tally_range (below INTEGER NOT NULL, through INTEGER NOT NULL);
  INSERT INTO message_tally_range (below, through) SELECT COALESCE(MAX(id), 0) + 1, COALESCE(MAX(id), 0) FROM messages;
  CREATE TRIGGER message_tally_delete AFTER DELETE ON messages
    WHEN OLD.id >= (SELECT below FROM message_tally_range) AND OLD.id <= (SELECT through FROM message_tally_range)
  BEGIN
    UPDATE message_tallies SET messages = messages - 1, violating = violating - (OLD.violations IS NOT NULL),
      violation_items = violation_items - (CASE WHEN json_valid(OLD.violations) THEN json_array_length(OLD.violations) ELSE 0 END)
    WHERE type = OLD.type AND event = COALESCE(OLD.event, '') AND source_id = OLD.source_id AND block = OLD.id >> 14;
  END;
  `,
  /* 24: the tallies keep a message without an event apart from one whose event is "" (schema 23
     put both under "", so the violation counts reported an identify sent with "event": "" as one
     without an event). A key of the rows a primary key cannot hold as NULL: no_event. Made again
     from the log like a log from before 23: the engine tallies it in the background after start. */ `
  DROP TRIGGER message_tally_delete;
  DROP TABLE message_tallies;
  CREATE TABLE message_tallies (
    type TEXT NOT NULL,
    -- '' for a message without an event (no_event 1) and for one whose event is "" (no_event 0).
    event TEXT NOT NULL,
    no_event INTEGER NOT NULL,
    source_id INTEGER NOT NULL,
    block INTEGER NOT NULL,
    messages INTEGER NOT NULL,
    violating INTEGER NOT NULL,
    violation_items INTEGER NOT NULL,
    first_at INTEGER NOT NULL,
    last_at INTEGER NOT NULL,
    PRIMARY KEY (type, event, no_event, source_id, block)
  ) WITHOUT ROWID;
  UPDATE message_tally_range SET below = (SELECT COALESCE(MAX(id), 0) + 1 FROM messages), through = (SELECT COALESCE(MAX(id), 0) FROM messages);
  CREATE TRIGGER message_tally_delete AFTER DELETE ON messages
    WHEN OLD.id >= (SELECT below FROM message_tally_range) AND OLD.id <= (SELECT through FROM message_tally_range)
  BEGIN
    UPDATE message_tallies SET messages = messages - 1, violating = violating - (OLD.violations IS NOT NULL),
      violation_items = violation_items - (CASE WHEN json_valid(OLD.violations) THEN json_array_length(OLD.violations) ELSE 0 END)
    WHERE type = OLD.type AND event = COALESCE(OLD.event, '') AND no_event = (OLD.event IS NULL)
      AND source_id = OLD.source_id AND block = OLD.id >> 14;
  END;
  `,
  /* 25: the search index no longer rewrites a segment inside the transaction that deletes from
     it. FTS5 merges a segment once a tenth of its rows are deleted ("deletemerge"), and it does so
     in the deleting transaction, reading the whole segment: a retention slice, a purge step or a
     Clear log slice of 20 messages then held the engine's thread for 40 to 530 ms at 1M messages.
     With it off, a deletion only records the row as gone; the engine merges the segments that
     carry deleted rows afterwards, in short steps of its own (SearchIndexStore.tidy). Those steps
     use FTS5's "merge" command, which would also merge any level of four segments ("usermerge"):
     at 10M messages one such step took 1.8 s, writing a common trigram's whole list of messages.
     At 16 (its highest) the command leaves levels to the merging FTS5 does as it indexes. */ `
  INSERT INTO message_text (message_text, rank) VALUES ('deletemerge', 0);
  INSERT INTO message_text (message_text, rank) VALUES ('usermerge', 16);
  `,
  /* 26: the search index's segments are merged in steps of the engine's own, not by FTS5 in the
     transaction that indexes. FTS5's own merging ("automerge") did 64 pages of merge work per
     level of the index for every 64 pages written: at 10M messages (seven levels) a follow-up
     slice that indexed a few dozen messages also merged 448 pages, 50 to 500 ms of the engine's
     thread. The engine now asks for merges of a few pages at a time, between slices
     (SearchIndexStore.mergeStep), with FTS5's default threshold of four segments a level;
     "crisismerge" stays FTS5's backstop should they fall behind. */ `
  INSERT INTO message_text (message_text, rank) VALUES ('automerge', 0);
  INSERT INTO message_text (message_text, rank) VALUES ('usermerge', 4);
  `,
  /* 27: the search index in parts by message id, each its own FTS5 table. FTS5 never stops a merge
     step inside a term, and a common trigram's list grows with its table: at 10M messages in one
     table a step of the engine's merging wrote such lists whole, 0.5 to 1.3 s of the engine's
     thread. The index so far is part 0 (message_text, from id 0); once the newest part holds
     PART_MESSAGES, the engine starts the next one, with its own table and delete trigger
     (store/search-index.ts). A part that is closed is merged into one segment (merged = 1). */ `
  CREATE TABLE message_text_parts (part INTEGER PRIMARY KEY, low INTEGER NOT NULL, merged INTEGER NOT NULL DEFAULT 0);
  INSERT INTO message_text_parts (part, low) VALUES (0, 0);
  `,
  /* 28: the deliveries in a rare status (retrying, failed, discarded), kept by triggers as rows
     move and go (store/rare-statuses.ts). A test asking for the failed deliveries of an
     event read the deliveries in windows until it had a page: 130 ms at 10M messages for one
     page. No index on deliveries.status: every delivery changes status three times, and each
     change would be a write in it; a delivery enters this table only when it goes wrong, which
     is already the costly path (attempts, a retry). message_id is kept for the messages that
     have a delivery in such a status. Every delivery is written pending (each INSERT in
     store/log-store.ts), so no insert trigger: one that only checked the status cost the raw
     insert of a message and its delivery about 4%. The update trigger costs each change of
     status about 2 µs (bench/status-list.measure.ts), two per delivery delivered. A log that
     already holds deliveries is listed downwards from rare_status_backfill.below in slices
     after start (0 when done). */ `
  CREATE TABLE rare_status_deliveries (
    status TEXT NOT NULL,
    id INTEGER NOT NULL,
    message_id INTEGER,
    PRIMARY KEY (status, id)
  ) WITHOUT ROWID;
  CREATE INDEX rare_status_deliveries_message ON rare_status_deliveries (status, message_id);
  CREATE TABLE rare_status_backfill (below INTEGER NOT NULL);
  INSERT INTO rare_status_backfill (below) SELECT COALESCE(MAX(id) + 1, 0) FROM deliveries;
  CREATE TRIGGER rare_status_update AFTER UPDATE OF status ON deliveries
    WHEN OLD.status IS NOT NEW.status AND (OLD.status IN ('retrying', 'failed', 'discarded') OR NEW.status IN ('retrying', 'failed', 'discarded'))
  BEGIN
    DELETE FROM rare_status_deliveries WHERE status = OLD.status AND id = OLD.id;
    INSERT OR IGNORE INTO rare_status_deliveries (status, id, message_id)
      SELECT NEW.status, NEW.id, NEW.message_id WHERE NEW.status IN ('retrying', 'failed', 'discarded');
  END;
  CREATE TRIGGER rare_status_delete AFTER DELETE ON deliveries WHEN OLD.status IN ('retrying', 'failed', 'discarded') BEGIN
    DELETE FROM rare_status_deliveries WHERE status = OLD.status AND id = OLD.id;
  END;
  `,
  /* 29: every message's time of receipt in an index of its own (store/message-times.ts). A
     test's "since it started" on a big log read the rows of the tallies' blocks its times fall
     in (16,384 messages each). With each message's source, type, event and whether it has
     violations (the fields the tallies count by), a count within times reads this table alone.
     Keyed by time, then id: a commit's messages share one time, so its entries land together
     on the newest page; no scattered key (which is what costs ingest on a big log). Taken in by
     the engine's follow-up with the tallies, a turn after the commit: an insert trigger cost the
     raw insert of a message and its delivery a tenth to a sixth more
     (bench/status-list.measure.ts). A removal takes an entry out by trigger. Not an index on
     messages: building it reads every message at once (a minute at 10M, holding start-up); a
     log that already holds messages is taken in oldest first, from message_times_backfill.next
     up to below, in slices after start (below 0 when done; taken in newest first, the table's
     pages were left half full: 67 bytes a message on the 1M seed against 38), and the table is
     read only once that is done. */ `
  CREATE TABLE message_times (
    received_at INTEGER NOT NULL,
    id INTEGER NOT NULL,
    -- What the tallies count by, so that a count within times reads no message row.
    source_id INTEGER NOT NULL,
    type TEXT NOT NULL,
    event TEXT,
    violating INTEGER NOT NULL,
    PRIMARY KEY (received_at, id)
  ) WITHOUT ROWID;
  CREATE TABLE message_times_backfill (below INTEGER NOT NULL, next INTEGER NOT NULL DEFAULT 0);
  INSERT INTO message_times_backfill (below) SELECT COALESCE(MAX(id) + 1, 0) FROM messages;
  CREATE TRIGGER message_times_delete AFTER DELETE ON messages BEGIN
    DELETE FROM message_times WHERE received_at = OLD.received_at AND id = OLD.id;
  END;
  `,
  /* 30: an Inbound call's kept body packed (store/request-body-pack.ts): with traffic as SDKs
     send it, that copy of the messages' JSON was the log's largest table. body_format says which
     form a row holds; rows from before keep theirs (text). */ `
  ALTER TABLE requests ADD COLUMN body_format INTEGER NOT NULL DEFAULT 0;
  `,
  /* 31: the range of delivery ids each attempt URL was attempted for (store/attempt-url-ranges.ts).
     A URL filter whose needle only attempts carry (a receiver's address since changed, say an
     ngrok URL of yesterday) checked every delivery's attempts from the newest down, about 13 µs a
     delivery at 10M, so the matches below a day of new traffic took dozens of calls to reach; with
     the range a read starts at the range's top and stops at its bottom. The range only widens
     (retention, purges and Clear log leave it as it was), so it always covers every delivery
     that has such an attempt. The trigger writes the URL's row only when an attempt falls outside
     it: at most once per round for the newest deliveries, on a table of one row per URL. Ranges
     of attempts from before are filled downwards from attempt_url_backfill.below in slices after
     start, and read only once that is done. */ `
  ALTER TABLE attempt_urls ADD COLUMN first_delivery INTEGER;
  ALTER TABLE attempt_urls ADD COLUMN last_delivery INTEGER;
  CREATE TABLE attempt_url_backfill (below INTEGER NOT NULL);
  INSERT INTO attempt_url_backfill (below) SELECT COALESCE(MAX(id) + 1, 0) FROM attempts;
  DROP TRIGGER attempt_urls_insert;
  CREATE TRIGGER attempt_urls_insert AFTER INSERT ON attempts BEGIN
    INSERT OR IGNORE INTO attempt_urls (url, first_delivery, last_delivery) VALUES (NEW.url, NEW.delivery_id, NEW.delivery_id);
    UPDATE attempt_urls SET first_delivery = MIN(COALESCE(first_delivery, NEW.delivery_id), NEW.delivery_id),
        last_delivery = MAX(COALESCE(last_delivery, NEW.delivery_id), NEW.delivery_id)
      WHERE url = NEW.url AND (first_delivery IS NULL OR NEW.delivery_id < first_delivery OR NEW.delivery_id > last_delivery);
  END;
  `,
];
