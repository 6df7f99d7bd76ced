/**
 * Version 20 (docs/DESIGN.md#the-sidebar): a session's family is the conversation it
 * branched from, by parent_id, transitively (fork, edit, regenerate, an import's branches).
 * sessions.family_id names it: the root's public id, kept by triggers on every write path
 * (a fork, an import, a pull), so the sidebar pages by family with an index (families.ts),
 * not a walk of the tree.
 */

/**
 * My family: my parent's, else my parent's id (a parent not here, purged or not pulled
 * yet: its branches still fold together), else my own id. Then whoever was keyed by my id
 * (they came before me, a pull's order) joins my family. One statement each, no walk: a
 * trigger may not recurse, and needs not: a family_id always names the topmost known id.
 * A parent_id that changes from one parent to another (never done) keeps its descendants.
 */
const JOIN_FAMILY = `
    UPDATE sessions SET family_id = COALESCE((SELECT p.family_id FROM sessions p WHERE p.id = new.parent_id AND p.pk <> new.pk), new.parent_id, new.id)
     WHERE pk = new.pk;
    UPDATE sessions SET family_id = (SELECT f.family_id FROM sessions f WHERE f.pk = new.pk) WHERE family_id = new.id AND pk <> new.pk;`;

export const FAMILIES = `
  ALTER TABLE sessions ADD COLUMN family_id TEXT;
  CREATE INDEX sessions_by_parent_once ON sessions (parent_id);
  WITH RECURSIVE family (pk, id, root) AS (
    SELECT s.pk, s.id, COALESCE(s.parent_id, s.id) FROM sessions s
     WHERE s.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM sessions p WHERE p.id = s.parent_id)
    UNION ALL SELECT s.pk, s.id, family.root FROM sessions s JOIN family ON s.parent_id = family.id
  )
  UPDATE sessions SET family_id = family.root FROM family WHERE family.pk = sessions.pk;
  -- A cycle of parent_ids (an edited import) has no root: each of its sessions stands alone.
  UPDATE sessions SET family_id = id WHERE family_id IS NULL;
  DROP INDEX sessions_by_parent_once;
  CREATE INDEX sessions_by_family ON sessions (family_id, updated_at, id);
  CREATE TRIGGER sessions_family_created AFTER INSERT ON sessions BEGIN${JOIN_FAMILY}
  END;
  CREATE TRIGGER sessions_family_reparented AFTER UPDATE OF parent_id ON sessions WHEN new.parent_id IS NOT old.parent_id BEGIN${JOIN_FAMILY}
  END;
`;
