/** axe-core scans of a screen (or a part of it), as accessibility.spec.ts and the feature specs run them. */
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures';

/** What axe finds on the page as it is, one line per rule broken, within `scope` when given. */
export async function axeViolations(page: Page, scope?: Locator): Promise<string[]> {
  let builder = new AxeBuilder({ page });
  if (scope) {
    await expect(scope).toBeVisible();
    const marker = `axe-scope-${Date.now()}`;
    await scope.evaluate((el, id) => el.setAttribute('data-axe-scope', id), marker);
    builder = builder.include(`[data-axe-scope="${marker}"]`);
  }
  const result = await builder.analyze();
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** No violation in the light theme nor in the dark one. */
export async function expectNoAxeViolations(page: Page, scope?: Locator): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    expect(await axeViolations(page, scope), theme).toEqual([]);
  }
}
