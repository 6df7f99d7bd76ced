/**
 * `npm run web`: serves the browser mode on 127.0.0.1 and prints the URL to open (it
 * carries this run's access token). Bundled to dist/web.js by scripts/web.mjs.
 *
 *   node dist/web.js [--port N] [--data-dir DIR] [--project DIR] [--static DIR]
 *                    [--base-url URL] [--model NAME]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../core/errors';
import { startBrowserMode } from './browser-mode';

async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      project: { type: 'string' },
      static: { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
    },
  });
  const port = values.port === undefined ? Number(process.env.LOOM_PORT ?? 0) : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, not "${values.port}".`);
  const mode = await startBrowserMode({
    dataDir: values['data-dir'],
    staticDir: path.resolve(values.static ?? 'out/renderer'),
    port,
    projectDir: values.project ? path.resolve(values.project) : undefined,
    overrides: {
      ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
      ...(values.model ? { model: values.model } : {}),
    },
  });
  console.log(`Loom is running in your browser at:\n\n  ${mode.url}\n\n(data: ${mode.backend.store.dataDir}; press Ctrl+C to stop)`);
  const stop = () => {
    void mode.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
  console.error(`loom: ${inUse ? 'that port is already in use; choose another with --port N (0 picks a free one).' : errorMessage(err)}`);
  process.exit(1);
});
