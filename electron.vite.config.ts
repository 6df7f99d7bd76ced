/**
 * electron-vite builds the three parts of the desktop app into out/:
 *   out/main      the main process (ESM; dependencies stay external, loaded from node_modules)
 *   out/preload   the preload, as CommonJS: a sandboxed preload cannot be an ES module
 *   out/renderer  the React UI, also what the browser mode serves
 */
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

export default defineConfig({
  main: {
    build: {
      rolldownOptions: { input: { index: resolve('src/main/index.ts') } },
    },
  },
  preload: {
    build: {
      rolldownOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    base: './',
    plugins: [react()],
    build: {
      outDir: resolve('out/renderer'),
      emptyOutDir: true,
      // Served to the browser mode as well: minified, it loads in half the time.
      minify: true,
      // One ~520 kB bundle (React, marked, highlight.js's common languages) read from
      // disk or loopback, never over a network: splitting it would only add round trips.
      chunkSizeWarningLimit: 600,
      rolldownOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
  },
});
