/**
 * The Electron IPC channel names: `loom:invoke:<method>` per contract method, one channel
 * for pushed events. A file of its own so the preload bundle does not pull in zod and
 * the contract's schemas.
 */
export const IPC_INVOKE_PREFIX = 'loom:invoke:';
export const IPC_EVENT_CHANNEL = 'loom:event';
