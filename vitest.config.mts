import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    // better-sqlite3 and spawned child processes behave best in forked workers.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
