/**
 * The Electron IPC channel names: one for requests, one for pushed events. A file of its
 * own so the preload bundle does not pull in zod and the contract's schemas.
 */
export const IPC_INVOKE_CHANNEL = 'loom:invoke';
export const IPC_EVENT_CHANNEL = 'loom:event';
