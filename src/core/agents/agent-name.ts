/**
 * What an agent may be called: a plain name, so a session's agent shows and travels as one
 * word. A module of its own, without zod, for the sync's checks of a pulled row (`loom --sync`
 * loads no schema library).
 */
export const AGENT_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;
