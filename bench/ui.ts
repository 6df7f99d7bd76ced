/**
 * UI timings in Chromium against the browser mode (Playwright driving Debian's chromium):
 *   - opening a 5,000-message session until its latest messages are on screen (target ≤ 500 ms)
 *   - a sidebar of 10,000 sessions: first rows on screen after load, and a full-text filter
 *     until its results are on screen, with the longest main-thread task seen ("stall")
 * Times are taken inside the page (performance.now, polled every animation frame), so
 * they measure what the user sees, not Playwright's round trips.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';
import type { SessionStore } from '../src/core/store/session-store';
import { startBrowserMode } from '../src/server/browser-mode';
import type { ChatMessage } from '../src/shared/types';
import { formatMs, percentile, printTable, progress, type BenchSection } from './harness';

const CHROMIUM = process.env.LOOM_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const STATIC_DIR = path.resolve('out/renderer');
const MESSAGES = 5000;
const SESSIONS = 10_000;
const RUNS = 7;
const OPEN_TARGET_MS = 500;
/** A main-thread task longer than this is a stall the user would notice. */
const STALL_MS = 200;

export interface UiBenchResult {
  openSession: { p50: number; p99: number; runs: number };
  sidebarLoad: { p50: number; p99: number; runs: number };
  sidebarFilter: { p50: number; p99: number; runs: number };
  longestTaskMs: number;
}

export async function runUiBench(): Promise<UiBenchResult> {
  if (!fs.existsSync(path.join(STATIC_DIR, 'index.html'))) {
    progress('ui: building the renderer (out/renderer)…');
    execFileSync(process.execPath, ['scripts/web.mjs', '--build-only'], { stdio: 'inherit' });
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-ui-'));
  const mode = await startBrowserMode({ dataDir, staticDir: STATIC_DIR, env: {}, overrides: { baseUrl: 'http://127.0.0.1:9/v1' } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    progress(`ui: seeding a ${MESSAGES}-message session and ${SESSIONS} sessions…`);
    seed(mode.backend.store);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(WATCH_LONG_TASKS);
    const sidebarLoad = await timeSidebarLoad(page, mode.url);
    const openSession = await timeOpenSession(page);
    const sidebarFilter = await timeSidebarFilter(page);
    const longestTaskMs = await page.evaluate<number>('window.loomLongest');
    return { openSession, sidebarLoad, sidebarFilter, longestTaskMs };
  } finally {
    await browser.close();
    await mode.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function seed(store: SessionStore): void {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are Loom.' }];
  for (let i = 1; i < MESSAGES; i++) {
    messages.push(
      i % 2
        ? { role: 'user', content: `<user_input>\nQuestion ${i}: how does part ${i} work?\n</user_input>` }
        : { role: 'assistant', content: `Answer ${i}: part ${i} works like this.\n\n\`\`\`ts\nconst part${i} = compute(${i});\n\`\`\`` },
    );
  }
  for (let i = 0; i < SESSIONS; i++) store.create({ title: `Session ${i} about ${i % 10 === 0 ? 'kingfishers' : 'rivers'}` });
  // Created last, so it tops the list.
  store.create({ title: 'Marathon', messages });
}

/**
 * Page-side code, as source text: it runs in Chromium, not in this Node program.
 * WAIT_FOR polls once per animation frame, so "visible" means "painted".
 */
const WATCH_LONG_TASKS = `
  window.loomLongest = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.loomLongest = Math.max(window.loomLongest, entry.duration);
  }).observe({ type: 'longtask', buffered: true });
`;
const WAIT_FOR = `(found) => new Promise((resolve) => { const check = () => (found() ? resolve() : requestAnimationFrame(check)); check(); })`;

const FIRST_ROWS = `(async () => {
  const waitFor = ${WAIT_FOR};
  await waitFor(() => [...document.querySelectorAll('.session-open')].some((b) => b.textContent.startsWith('Marathon')));
  return performance.now();
})()`;

const OPEN_SESSION = (lastText: string) => `(async () => {
  const waitFor = ${WAIT_FOR};
  const open = [...document.querySelectorAll('.session-open')].find((b) => b.textContent.startsWith('Marathon'));
  const start = performance.now();
  open.click();
  await waitFor(() => document.querySelector('[role=log]')?.textContent.includes(${JSON.stringify(lastText)}));
  return performance.now() - start;
})()`;

const FILTER_SIDEBAR = (query: string) => `(async () => {
  const waitFor = ${WAIT_FOR};
  const input = document.querySelector('input[type=search]');
  const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  const start = performance.now();
  setValue.call(input, ${JSON.stringify(query)});
  input.dispatchEvent(new Event('input', { bubbles: true }));
  await waitFor(() => document.querySelector('[aria-label="Search results"] li mark'));
  return performance.now() - start;
})()`;

/** From navigation start to the first sidebar rows painted. */
async function timeSidebarLoad(page: Page, url: string) {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    // From elsewhere, so each run is a page load: the same URL again changes only the fragment, which loads nothing.
    await page.goto('about:blank');
    await page.goto(url, { waitUntil: 'commit' });
    times.push(await page.evaluate<number>(FIRST_ROWS));
  }
  return summary(times);
}

/** From the click on the session to its last message painted. */
async function timeOpenSession(page: Page) {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    times.push(await page.evaluate<number>(OPEN_SESSION(`Question ${MESSAGES - 1}:`)));
    const close = page.getByTitle(/^Close tab Marathon/);
    await close.click();
    // Closing asks the engine for changed files first, so the tab goes a moment later.
    await close.waitFor({ state: 'detached' });
  }
  return summary(times);
}

/** From typing a search to its results painted. */
async function timeSidebarFilter(page: Page) {
  const times: number[] = [];
  const box = page.getByRole('searchbox', { name: 'Search sessions' });
  for (let run = 0; run < RUNS; run++) {
    await box.fill('');
    // The previous run's results must be gone, or the next run would time them instead.
    await page.locator('[aria-label="Search results"]').waitFor({ state: 'detached' });
    await page.getByRole('list', { name: 'Session list' }).waitFor();
    times.push(await page.evaluate<number>(FILTER_SIDEBAR('kingfishers')));
  }
  return summary(times);
}

function summary(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), runs: times.length };
}

export const uiSection: BenchSection = {
  name: 'UI (browser mode in Chromium)',
  async run() {
    const r = await runUiBench();
    printTable(
      'UI timings (in the page, until painted)',
      ['measure', 'p50', 'p99', 'runs', 'target'],
      [
        [
          `open a ${MESSAGES.toLocaleString('en-US')}-message session → latest messages visible`,
          formatMs(r.openSession.p50),
          formatMs(r.openSession.p99),
          String(r.openSession.runs),
          `≤ ${OPEN_TARGET_MS} ms`,
        ],
        [
          `sidebar of ${SESSIONS.toLocaleString('en-US')} sessions: page load → first rows`,
          formatMs(r.sidebarLoad.p50),
          formatMs(r.sidebarLoad.p99),
          String(r.sidebarLoad.runs),
          '—',
        ],
        [
          'sidebar search → results visible (incl. 150 ms debounce)',
          formatMs(r.sidebarFilter.p50),
          formatMs(r.sidebarFilter.p99),
          String(r.sidebarFilter.runs),
          '—',
        ],
        ['longest main-thread task during all of the above', formatMs(r.longestTaskMs), '', '', `< ${STALL_MS} ms`],
      ],
    );
  },
};
