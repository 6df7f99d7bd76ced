/** An axe-core scan of a screen (or a part of it) in the light and the dark theme, as accessibility.spec.ts scans its screens. */
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures';

export async function expectNoAxeViolations(page: Page, scope?: Locator): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    let builder = new AxeBuilder({ page });
    if (scope) {
      await expect(scope).toBeVisible();
      const marker = `axe-scope-${Date.now()}`;
      await scope.evaluate((el, id) => el.setAttribute('data-axe-scope', id), marker);
      builder = builder.include(`[data-axe-scope="${marker}"]`);
    }
    const result = await builder.analyze();
    const violations = result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(violations, theme).toEqual([]);
  }
}
