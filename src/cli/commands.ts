/**
 * Everything a command but --help, --version and a chat runs, behind one dynamic import of
 * main.ts. esbuild splits code by the set of dynamic imports that reach it: one import here
 * instead of one per command keeps `loom --list-sessions` to a few files, each a round trip
 * of Node's module loader (docs/ARCHITECTURE.md#the-node-build).
 */
export { runDoctor } from './doctor';
export { runLifecycle } from './lifecycle';
export { explainDamage } from '../core/store/damage';
export { databasePath } from '../core/store/db';
