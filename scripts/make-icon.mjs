// Renders packaging/icon.svg to packaging/icon.png (1024×1024, transparent corners), the
// one icon electron-builder turns into each platform's format. Run after editing the SVG.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { findChromium } from './chromium.mjs';
import { root } from './electron-setup.mjs';

const svg = fs.readFileSync(path.join(root, 'packaging/icon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath: findChromium().path ?? undefined, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1024, height: 1024 } });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: path.join(root, 'packaging/icon.png'), omitBackground: true });
} finally {
  await browser.close();
}
