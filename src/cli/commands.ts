/**
 * Everything a command but --help, --version, a chat, the hub and sync commands runs: one
 * file of the build, loaded by one dynamic import of main.ts (docs/ARCHITECTURE.md#the-node-build).
 */
export { runDoctor } from './doctor';
export { runLifecycle } from './lifecycle';
export { explainDamage } from '../core/store/damage';
export { databasePath } from '../core/store/db';
