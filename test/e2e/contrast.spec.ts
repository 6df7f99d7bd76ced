/**
 * The coloured buttons stay readable in both themes, hovered or not: a primary button
 * once turned white-on-light when hovered (1.2:1), and the dark theme's danger buttons
 * measured 2.3:1. WCAG AA asks 4.5:1 for text.
 */
import type { Locator } from '@playwright/test';
import { take } from '../support/elements';
import { expect, openLoom, sessionAction, test } from './fixtures';

/** WCAG relative luminance of an `rgb(r, g, b)` computed colour. */
function luminance(rgb: string): number {
  const channels = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
    const v = Number(c) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  const [r, g, b] = take(channels, 3);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

async function contrast(button: Locator): Promise<number> {
  const { color, background } = await button.evaluate((el) => {
    const style = el.ownerDocument.defaultView?.getComputedStyle(el);
    return { color: style?.color ?? '', background: style?.backgroundColor ?? '' };
  });
  const [light, dark] = take(
    [luminance(color), luminance(background)].sort((a, b) => b - a),
    2,
  );
  return (light + 0.05) / (dark + 0.05);
}

for (const theme of ['light', 'dark'] as const) {
  test(`primary and danger buttons keep at least 4.5:1, hovered or not (${theme})`, async ({ page, loom }) => {
    loom.store.create({ title: 'Notes' });
    await page.emulateMedia({ colorScheme: theme });
    await openLoom(page, loom);
    const primary = page.getByRole('region', { name: 'No session open' }).getByRole('button', { name: 'New session' });
    expect(await contrast(primary)).toBeGreaterThanOrEqual(4.5);
    await primary.hover();
    expect(await contrast(primary)).toBeGreaterThanOrEqual(4.5);

    await sessionAction(page, 'Notes', 'Delete…');
    const danger = page.getByRole('dialog', { name: 'Delete session?' }).getByRole('button', { name: 'Delete' });
    expect(await contrast(danger)).toBeGreaterThanOrEqual(4.5);
    await danger.hover();
    expect(await contrast(danger)).toBeGreaterThanOrEqual(4.5);
  });
}
