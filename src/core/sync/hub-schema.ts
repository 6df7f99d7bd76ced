/**
 * The hub's schema (docs/DESIGN.md#sync-through-a-hub): PostgreSQL tables in the schema
 * `loom`, created and migrated by `loom --hub-init` as the hub's owner role. Like the local
 * store's migrations, they are ordered and never edited once released: a change is a new
 * entry. `hub-init.ts` runs them in one transaction and records the version in
 * `loom.hub_meta`.
 *
 * Kept to the SQL that PostgreSQL, CockroachDB and YugabyteDB share where it could be
 * (no xid or snapshot functions, no advisory locks, no COPY); the rest — row-level
 * security, the PL/pgSQL trigger, the SQL functions — is weighed in
 * docs/DESIGN.md#portability-cockroachdb-and-yugabytedb.
 */

export interface HubMigration {
  version: number;
  /** Statements run in order, in the init's transaction. */
  statements: string[];
}

/** Tables holding a user's data: row-level security is enabled and forced on each. */
const USER_DATA_TABLES = ['devices', 'sessions', 'bodies', 'entries', 'records', 'shares', 'conflicts'] as const;

const TABLES = [
  `CREATE TABLE loom.clock (id integer PRIMARY KEY CHECK (id = 1), seq bigint NOT NULL)`,
  `INSERT INTO loom.clock (id, seq) VALUES (1, 0)`,
  `CREATE TABLE loom.devices (
     device_id uuid PRIMARY KEY,
     owner text NOT NULL DEFAULT current_user,
     label text NOT NULL,
     last_seq bigint NOT NULL DEFAULT 0,
     seen_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE TABLE loom.sessions (
     id uuid PRIMARY KEY,
     owner text NOT NULL DEFAULT current_user,
     parent_id uuid,
     fork_parent_id uuid,
     fork_at integer NOT NULL DEFAULT 0,
     created_at text NOT NULL,
     title text,
     title_hlc bigint NOT NULL DEFAULT 0,
     archived boolean NOT NULL DEFAULT false,
     archived_hlc bigint NOT NULL DEFAULT 0,
     state jsonb NOT NULL DEFAULT '{}',
     state_hlc bigint NOT NULL DEFAULT 0,
     deleted_hlc bigint,
     note text,
     origin_device uuid NOT NULL,
     hub_seq bigint NOT NULL)`,
  `CREATE INDEX sessions_hub_seq ON loom.sessions (hub_seq)`,
  `CREATE INDEX sessions_owner ON loom.sessions (owner)`,
  `CREATE INDEX sessions_title_search ON loom.sessions USING gin (to_tsvector('english', coalesce(title, '')))`,
  `CREATE TABLE loom.bodies (
     owner text NOT NULL DEFAULT current_user,
     hash text NOT NULL,
     body jsonb NOT NULL,
     search tsvector NOT NULL,
     PRIMARY KEY (owner, hash))`,
  // The default 4 MB pending list: a 64 MB one sped a first push up but made every search scan the unmerged list (docs/DESIGN.md#sync-through-a-hub).
  `CREATE INDEX bodies_search ON loom.bodies USING gin (search)`,
  `CREATE TABLE loom.entries (
     session_id uuid NOT NULL,
     seq integer NOT NULL,
     owner text NOT NULL DEFAULT current_user,
     body_hash text NOT NULL,
     device_id uuid NOT NULL,
     device_seq bigint NOT NULL,
     hub_seq bigint NOT NULL,
     PRIMARY KEY (session_id, seq))`,
  `CREATE INDEX entries_hub_seq ON loom.entries (hub_seq)`,
  `CREATE INDEX entries_body ON loom.entries (owner, body_hash)`,
  `CREATE TABLE loom.records (
     device_id uuid NOT NULL,
     device_seq bigint NOT NULL,
     session_id uuid NOT NULL,
     owner text NOT NULL DEFAULT current_user,
     kind text NOT NULL CHECK (kind IN ('compaction', 'context_start', 'model_change')),
     body jsonb NOT NULL,
     hub_seq bigint NOT NULL,
     PRIMARY KEY (device_id, device_seq))`,
  `CREATE INDEX records_hub_seq ON loom.records (hub_seq)`,
  `CREATE INDEX records_session ON loom.records (session_id)`,
  `CREATE TABLE loom.team_members (team text NOT NULL, member text NOT NULL, PRIMARY KEY (team, member))`,
  `CREATE INDEX team_members_member ON loom.team_members (member)`,
  `CREATE TABLE loom.shares (
     session_id uuid NOT NULL,
     team text NOT NULL,
     owner text NOT NULL DEFAULT current_user,
     hub_seq bigint NOT NULL,
     PRIMARY KEY (session_id, team))`,
  `CREATE INDEX shares_team ON loom.shares (team)`,
  `CREATE TABLE loom.conflicts (
     session_id uuid NOT NULL,
     owner text NOT NULL DEFAULT current_user,
     field text NOT NULL,
     value jsonb,
     hlc bigint NOT NULL,
     device_id uuid NOT NULL,
     recorded_at timestamptz NOT NULL DEFAULT now())`,
];

/**
 * Every user may take hub_seqs from the clock (a push's `UPDATE loom.clock SET seq = seq +
 * n`), so the clock itself guards its one rule: it only moves forward, by a push's worth
 * at a time. Moved back, numbers would be handed out twice and devices whose cursor is
 * past them would never read those rows.
 */
const CLOCK_MAX_STEP = 10_000_000;

const CLOCK_GUARD = [
  `CREATE FUNCTION loom.clock_moves_forward() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.id <> OLD.id OR NEW.seq <= OLD.seq OR NEW.seq - OLD.seq > ${CLOCK_MAX_STEP} THEN
       RAISE EXCEPTION 'loom.clock only moves forward, by at most ${CLOCK_MAX_STEP} at a time' USING ERRCODE = '42501';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER clock_moves_forward BEFORE UPDATE ON loom.clock FOR EACH ROW EXECUTE FUNCTION loom.clock_moves_forward()`,
];

/**
 * A new team member must see the sessions already shared with the team: their hub_seq
 * moves past every cursor, so the member's next pull reads them (numbers taken from the
 * clock like a push's). Runs as the owner who adds members (the owner policy lets it).
 */
const TEAM_MEMBER_TRIGGER = [
  `CREATE FUNCTION loom.team_member_added() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     shared bigint;
     top bigint;
   BEGIN
     SELECT count(*) INTO shared FROM loom.shares WHERE team = NEW.team;
     IF shared > 0 THEN
       UPDATE loom.clock SET seq = seq + shared WHERE id = 1 RETURNING seq INTO top;
       UPDATE loom.sessions AS s SET hub_seq = top - shared + r.n
         FROM (SELECT session_id, row_number() OVER (ORDER BY session_id) AS n FROM loom.shares WHERE team = NEW.team) AS r
         WHERE s.id = r.session_id;
       PERFORM pg_notify('loom_changes', top::text);
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER team_member_added AFTER INSERT ON loom.team_members FOR EACH ROW EXECUTE FUNCTION loom.team_member_added()`,
];

/**
 * Team search's matching, as a function run with the owner's rights (SECURITY DEFINER).
 * Row-level security cannot serve it: PostgreSQL does not use an index for a condition
 * that is not leakproof (`@@` is not) on a table with policies, so under RLS every search
 * read every body (8 s over 100,000 sessions in the bench). The function applies the
 * sessions policy's rule itself — the reader's own sessions and those shared with the
 * reader's teams — to each candidate, and returns only
 * those sessions' ids, titles and best-matching (owner, hash); the message text for the
 * snippets is then read by the caller under row-level security. The reader is the
 * caller's `current_user`, passed in because a definer function sees only its own; it
 * counts only when it is the session's user or a role that user may act as (the same
 * membership that lets SET ROLE read that role's rows), so nobody searches as another.
 * Executable by Loom users only; jit off, since compiling the plan took longer than running it.
 *
 * Ranking reads only the `cap` best matching messages (since version 2, of readable sessions only) in one total order —
 * rank, then the body's hash and owner — and orders sessions by their best message in that
 * same order (then by id): every session not named by those messages ranks below every
 * one named, ties included, so the page is exact once it is full. `capped` says the cap
 * was reached; when that left fewer hits than asked for, team-search.ts asks again with a
 * larger one. A common word still ranks every match (`ts_rank` reads each matching body):
 * the cap saves joining them all to their sessions.
 *
 * PL/pgSQL's RETURN QUERY with custom plans only, not a SQL function: each search is
 * planned for its words (the tsquery folded to a constant), so the planner knows how many
 * messages match and ranks a common word's in a parallel scan, while a rare word's stays
 * a few index reads. A SQL function's body is planned blind (2,500 matches guessed for
 * any word) and never runs in parallel.
 */
const TEAM_SEARCH_FUNCTION = [
  `CREATE FUNCTION loom.team_search(reader text, words text, max_hits integer, skip integer, with_archived boolean, cap integer)
   RETURNS TABLE (id uuid, title text, owner text, updated_at text, rank real, body_owner text, body_hash text, capped boolean)
   LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET jit = off SET plan_cache_mode = force_custom_plan AS $$
   #variable_conflict use_column
   BEGIN RETURN QUERY
   WITH top_bodies AS (
     SELECT b.owner, b.hash, ts_rank(b.search, websearch_to_tsquery('english', words)) AS rank
       FROM loom.bodies b WHERE b.search @@ websearch_to_tsquery('english', words) ORDER BY rank DESC, b.hash, b.owner LIMIT cap
   ),
   hits AS (
     SELECT e.session_id, t.owner AS body_owner, t.hash, t.rank
       FROM top_bodies t JOIN loom.entries e ON e.owner = t.owner AND e.body_hash = t.hash
     UNION ALL
     SELECT s.id, NULL, NULL, ts_rank(to_tsvector('english', coalesce(s.title, '')), websearch_to_tsquery('english', words)) + 1::real
       FROM loom.sessions s WHERE to_tsvector('english', coalesce(s.title, '')) @@ websearch_to_tsquery('english', words)
   ),
   readable AS (
     SELECT h.session_id, h.body_owner, h.hash, h.rank, s.title, s.owner, coalesce(s.state->>'updated_at', s.created_at) AS updated_at
       FROM hits h CROSS JOIN LATERAL (
         SELECT s.* FROM loom.sessions s
          WHERE s.id = h.session_id AND s.deleted_hlc IS NULL AND (with_archived OR NOT s.archived)
            AND (reader = session_user OR pg_has_role(session_user, reader, 'MEMBER'))
            AND (s.owner = reader OR EXISTS (
              SELECT 1 FROM loom.shares sh JOIN loom.team_members tm ON tm.team = sh.team
               WHERE sh.session_id = s.id AND tm.member = reader))
         OFFSET 0) s
   ),
   best AS (SELECT DISTINCT ON (r.session_id) r.* FROM readable r ORDER BY r.session_id, r.rank DESC, r.hash, r.body_owner)
   SELECT best.session_id, best.title, best.owner, best.updated_at, best.rank, best.body_owner, best.hash,
          coalesce((SELECT count(*) FROM top_bodies) >= cap, false)
     FROM best ORDER BY best.rank DESC, best.hash, best.body_owner, best.session_id
    LIMIT max_hits OFFSET skip;
   END $$`,
  `REVOKE ALL ON FUNCTION loom.team_search(text, text, integer, integer, boolean, integer) FROM PUBLIC`,
  `GRANT EXECUTE ON FUNCTION loom.team_search(text, text, integer, integer, boolean, integer) TO loom_user`,
];

const GRANTS = [
  `GRANT USAGE ON SCHEMA loom TO loom_user`,
  `GRANT SELECT ON loom.hub_meta, loom.team_members TO loom_user`,
  `GRANT SELECT, UPDATE ON loom.clock TO loom_user`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ${USER_DATA_TABLES.map((table) => `loom.${table}`).join(', ')} TO loom_user`,
];

/** The sessions a reader may see: their own, and those shared with a team they are in. */
const READABLE_SESSION = `(owner = current_user OR EXISTS (
  SELECT 1 FROM loom.shares sh JOIN loom.team_members tm ON tm.team = sh.team
  WHERE sh.session_id = sessions.id AND tm.member = current_user))`;

/** A row hanging off a session (entries, records) is readable when its session is: the sessions policy applies inside. */
const readableWithSession = (table: string) => `EXISTS (SELECT 1 FROM loom.sessions s WHERE s.id = ${table}.session_id)`;

/**
 * Written only into the writer's own sessions. A function, not an inline EXISTS: the
 * sessions policy reads shares, so a shares policy reading sessions directly would be a
 * policy cycle (PostgreSQL refuses it); the function's query gets the sessions policy
 * applied on its own, as the calling role.
 */
const OWN_SESSION_FUNCTION = `CREATE FUNCTION loom.is_own_session(session uuid) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM loom.sessions s WHERE s.id = session AND s.owner = current_user) $$`;

const OWN = 'owner = current_user';

/**
 * Rows keyed by (device, device_seq) name one of the writer's own devices: a teammate who
 * read a device id off a shared session cannot take that device's future keys (a
 * record pushed later under a taken key would be dropped as already there).
 */
const ownDevice = (table: string) => `EXISTS (SELECT 1 FROM loom.devices d WHERE d.device_id = ${table}.device_id AND d.owner = current_user)`;

/**
 * Row-level security, enabled and FORCEd (so it binds a table's owner too) on every table
 * with user data. Loom users (`loom_user`) read what they own or what is shared with a
 * team they belong to, and write only their own rows. The hub owner role that ran the init
 * (`TO CURRENT_USER`, fixed when the policy is made) administers: adding team members
 * bumps shared sessions through the trigger above. The init refuses an owner that is
 * also a Loom user, so no user reads through the owner's policies.
 */
const POLICIES = [
  ...USER_DATA_TABLES.flatMap((table) => [
    `ALTER TABLE loom.${table} ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE loom.${table} FORCE ROW LEVEL SECURITY`,
    `CREATE POLICY hub_owner ON loom.${table} TO CURRENT_USER USING (true) WITH CHECK (true)`,
  ]),
  // team_members: the owner manages it (its owner policy); a user reads only their own memberships.
  `ALTER TABLE loom.team_members ENABLE ROW LEVEL SECURITY`,
  `ALTER TABLE loom.team_members FORCE ROW LEVEL SECURITY`,
  `CREATE POLICY hub_owner ON loom.team_members TO CURRENT_USER USING (true) WITH CHECK (true)`,
  `CREATE POLICY member_reads_own ON loom.team_members FOR SELECT TO loom_user USING (member = current_user)`,

  `CREATE POLICY devices_own ON loom.devices TO loom_user USING (${OWN}) WITH CHECK (${OWN})`,
  `CREATE POLICY conflicts_own ON loom.conflicts TO loom_user USING (${OWN}) WITH CHECK (${OWN})`,

  `CREATE POLICY sessions_read ON loom.sessions FOR SELECT TO loom_user USING ${READABLE_SESSION}`,
  `CREATE POLICY sessions_insert ON loom.sessions FOR INSERT TO loom_user WITH CHECK (${OWN})`,
  `CREATE POLICY sessions_update ON loom.sessions FOR UPDATE TO loom_user USING (${OWN}) WITH CHECK (${OWN})`,
  `CREATE POLICY sessions_delete ON loom.sessions FOR DELETE TO loom_user USING (${OWN})`,

  ...(['entries', 'records'] as const).flatMap((table) => [
    `CREATE POLICY ${table}_read ON loom.${table} FOR SELECT TO loom_user USING (${readableWithSession(table)})`,
    `CREATE POLICY ${table}_insert ON loom.${table} FOR INSERT TO loom_user WITH CHECK (${OWN} AND loom.is_own_session(session_id) AND ${ownDevice(table)})`,
    `CREATE POLICY ${table}_update ON loom.${table} FOR UPDATE TO loom_user USING (${OWN}) WITH CHECK (${OWN} AND loom.is_own_session(session_id) AND ${ownDevice(table)})`,
    `CREATE POLICY ${table}_delete ON loom.${table} FOR DELETE TO loom_user USING (${OWN})`,
  ]),

  // A body is readable when a readable entry uses it: knowing a hash reveals nothing.
  `CREATE POLICY bodies_read ON loom.bodies FOR SELECT TO loom_user USING (${OWN} OR EXISTS (
     SELECT 1 FROM loom.entries e WHERE e.owner = bodies.owner AND e.body_hash = bodies.hash))`,
  `CREATE POLICY bodies_insert ON loom.bodies FOR INSERT TO loom_user WITH CHECK (${OWN})`,
  `CREATE POLICY bodies_delete ON loom.bodies FOR DELETE TO loom_user USING (${OWN})`,

  // Shares: read by the owner and the team's members; made only by the session's owner, for a team the owner is in.
  `CREATE POLICY shares_read ON loom.shares FOR SELECT TO loom_user USING (${OWN} OR team IN (
     SELECT tm.team FROM loom.team_members tm WHERE tm.member = current_user))`,
  `CREATE POLICY shares_insert ON loom.shares FOR INSERT TO loom_user WITH CHECK (${OWN} AND loom.is_own_session(session_id) AND team IN (
     SELECT tm.team FROM loom.team_members tm WHERE tm.member = current_user))`,
  `CREATE POLICY shares_update ON loom.shares FOR UPDATE TO loom_user USING (${OWN}) WITH CHECK (${OWN} AND loom.is_own_session(session_id) AND team IN (
     SELECT tm.team FROM loom.team_members tm WHERE tm.member = current_user))`,
  `CREATE POLICY shares_delete ON loom.shares FOR DELETE TO loom_user USING (${OWN})`,
];

/** The reader may read session `s`'s rows (their own, or shared with a team they are in), archived, deleted or not. */
const readerMayReadRowsOf = (s: string) => `(reader = session_user OR pg_has_role(session_user, reader, 'MEMBER'))
  AND (${s}.owner = reader OR EXISTS (
    SELECT 1 FROM loom.shares sh JOIN loom.team_members tm ON tm.team = sh.team WHERE sh.session_id = ${s}.id AND tm.member = reader))`;

/** What the reader may read of session `s`, as the sessions policy says, for a definer function that cannot rely on it. */
const readerMayRead = (s: string) => `${s}.deleted_hlc IS NULL AND (with_archived OR NOT ${s}.archived)
  AND ${readerMayReadRowsOf(s)}`;

/**
 * Version 1's team_search counted its cap over every owner's matching messages before the
 * privacy check, so `capped` (and which sessions a small cap let through) said whether a
 * private message anywhere held the words. Now only messages of sessions the reader may
 * read are ranked and counted: every figure the function returns comes from readable rows.
 * The check is a semi-join per matching message (entries_body's index), done before the
 * sort, so a common word still ranks each match once.
 */
const TEAM_SEARCH_READABLE_FIRST = [
  `CREATE OR REPLACE FUNCTION loom.team_search(reader text, words text, max_hits integer, skip integer, with_archived boolean, cap integer)
   RETURNS TABLE (id uuid, title text, owner text, updated_at text, rank real, body_owner text, body_hash text, capped boolean)
   LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET jit = off SET plan_cache_mode = force_custom_plan AS $$
   #variable_conflict use_column
   BEGIN RETURN QUERY
   WITH top_bodies AS (
     SELECT b.owner, b.hash, ts_rank(b.search, websearch_to_tsquery('english', words)) AS rank
       FROM loom.bodies b
      WHERE b.search @@ websearch_to_tsquery('english', words)
        AND EXISTS (SELECT 1 FROM loom.entries e JOIN loom.sessions s ON s.id = e.session_id
                     WHERE e.owner = b.owner AND e.body_hash = b.hash AND ${readerMayRead('s')})
      ORDER BY rank DESC, b.hash, b.owner LIMIT cap
   ),
   hits AS (
     SELECT e.session_id, t.owner AS body_owner, t.hash, t.rank
       FROM top_bodies t JOIN loom.entries e ON e.owner = t.owner AND e.body_hash = t.hash
     UNION ALL
     SELECT s.id, NULL, NULL, ts_rank(to_tsvector('english', coalesce(s.title, '')), websearch_to_tsquery('english', words)) + 1::real
       FROM loom.sessions s WHERE to_tsvector('english', coalesce(s.title, '')) @@ websearch_to_tsquery('english', words)
   ),
   readable AS (
     SELECT h.session_id, h.body_owner, h.hash, h.rank, s.title, s.owner, coalesce(s.state->>'updated_at', s.created_at) AS updated_at
       FROM hits h CROSS JOIN LATERAL (
         SELECT s.* FROM loom.sessions s WHERE s.id = h.session_id AND ${readerMayRead('s')}
         OFFSET 0) s
   ),
   best AS (SELECT DISTINCT ON (r.session_id) r.* FROM readable r ORDER BY r.session_id, r.rank DESC, r.hash, r.body_owner)
   SELECT best.session_id, best.title, best.owner, best.updated_at, best.rank, best.body_owner, best.hash,
          coalesce((SELECT count(*) FROM top_bodies) >= cap, false)
     FROM best ORDER BY best.rank DESC, best.hash, best.body_owner, best.session_id
    LIMIT max_hits OFFSET skip;
   END $$`,
];

/**
 * The sessions whose transcript holds entry `e`, as rows `holder (id)`: its own session,
 * then each fork reading it through its chain — whose fork point is past the entry's seq,
 * so what a parent added after the fork is not the fork's (the device's rule,
 * store/search.ts). Lazy: a check that the entry's own session will do reads no fork.
 */
const sessionsHolding = (e: string) => `(WITH RECURSIVE holder (id) AS (
    SELECT ${e}.session_id
    UNION ALL
    SELECT f.id FROM holder h JOIN loom.sessions f ON f.fork_parent_id = h.id AND f.fork_at > ${e}.seq
  ) SELECT holder.id FROM holder)`;

/**
 * Version 2 joined each matching message to the session owning its entry only. A fork
 * copies no entries (it reads its parent's below its fork point), so a fork was never
 * found by its shared history, and archiving the parent hid those messages everywhere.
 * Now an entry is a hit in every session holding it (`sessionsHolding`, walked through
 * the new `sessions_fork_parent` index) that the reader may be shown, and the entry must
 * be one the reader may read: a fork shared with a team never shows its private parent's
 * messages, as a teammate's device, which cannot pull them, never shows them either.
 */
const TEAM_SEARCH_FORKS = [
  `CREATE INDEX IF NOT EXISTS sessions_fork_parent ON loom.sessions (fork_parent_id) WHERE fork_parent_id IS NOT NULL`,
  `CREATE OR REPLACE FUNCTION loom.team_search(reader text, words text, max_hits integer, skip integer, with_archived boolean, cap integer)
   RETURNS TABLE (id uuid, title text, owner text, updated_at text, rank real, body_owner text, body_hash text, capped boolean)
   LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET jit = off SET plan_cache_mode = force_custom_plan AS $$
   #variable_conflict use_column
   BEGIN RETURN QUERY
   WITH top_bodies AS (
     SELECT b.owner, b.hash, ts_rank(b.search, websearch_to_tsquery('english', words)) AS rank
       FROM loom.bodies b
      WHERE b.search @@ websearch_to_tsquery('english', words)
        AND EXISTS (SELECT 1 FROM loom.entries e JOIN loom.sessions src ON src.id = e.session_id
                      CROSS JOIN LATERAL ${sessionsHolding('e')} h JOIN loom.sessions s ON s.id = h.id
                     WHERE e.owner = b.owner AND e.body_hash = b.hash AND ${readerMayReadRowsOf('src')} AND ${readerMayRead('s')})
      ORDER BY rank DESC, b.hash, b.owner LIMIT cap
   ),
   hits AS (
     SELECT h.id AS session_id, t.owner AS body_owner, t.hash, t.rank
       FROM top_bodies t JOIN loom.entries e ON e.owner = t.owner AND e.body_hash = t.hash
       JOIN loom.sessions src ON src.id = e.session_id
       CROSS JOIN LATERAL ${sessionsHolding('e')} h
      WHERE ${readerMayReadRowsOf('src')}
     UNION ALL
     SELECT s.id, NULL, NULL, ts_rank(to_tsvector('english', coalesce(s.title, '')), websearch_to_tsquery('english', words)) + 1::real
       FROM loom.sessions s WHERE to_tsvector('english', coalesce(s.title, '')) @@ websearch_to_tsquery('english', words)
   ),
   readable AS (
     SELECT h.session_id, h.body_owner, h.hash, h.rank, s.title, s.owner, coalesce(s.state->>'updated_at', s.created_at) AS updated_at
       FROM hits h CROSS JOIN LATERAL (
         SELECT s.* FROM loom.sessions s WHERE s.id = h.session_id AND ${readerMayRead('s')}
         OFFSET 0) s
   ),
   best AS (SELECT DISTINCT ON (r.session_id) r.* FROM readable r ORDER BY r.session_id, r.rank DESC, r.hash, r.body_owner)
   SELECT best.session_id, best.title, best.owner, best.updated_at, best.rank, best.body_owner, best.hash,
          coalesce((SELECT count(*) FROM top_bodies) >= cap, false)
     FROM best ORDER BY best.rank DESC, best.hash, best.body_owner, best.session_id
    LIMIT max_hits OFFSET skip;
   END $$`,
];

/**
 * Version 4: a session's agent changes travel as records, as its model changes do (its
 * agent and a sub-agent's link ride in its state, which the hub keeps as it is sent).
 */
const AGENT_CHANGE_RECORDS = [
  `ALTER TABLE loom.records DROP CONSTRAINT records_kind_check`,
  `ALTER TABLE loom.records ADD CONSTRAINT records_kind_check CHECK (kind IN ('compaction', 'context_start', 'model_change', 'agent_change'))`,
];

export const HUB_MIGRATIONS: readonly HubMigration[] = [
  { version: 1, statements: [...TABLES, ...CLOCK_GUARD, ...TEAM_MEMBER_TRIGGER, OWN_SESSION_FUNCTION, ...TEAM_SEARCH_FUNCTION, ...GRANTS, ...POLICIES] },
  { version: 2, statements: TEAM_SEARCH_READABLE_FIRST },
  { version: 3, statements: TEAM_SEARCH_FORKS },
  { version: 4, statements: AGENT_CHANGE_RECORDS },
];

/** The newest hub schema this Loom knows; a hub at a higher version is refused, untouched. */
export const HUB_SCHEMA_VERSION = Math.max(...HUB_MIGRATIONS.map((m) => m.version));
