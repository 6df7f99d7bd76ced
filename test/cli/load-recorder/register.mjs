// Preloaded with `node --import` by test/cli/lazy-loading.test.ts: records every module file
// the process loads (ESM loader hooks run in a thread of their own, hence the file).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
