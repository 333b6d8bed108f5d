import type { Page } from 'playwright-core';

/**
 * Sets the Evaluate page's method and axis pickers to exactly `methods` (method ids, comma
 * separated: `cot,sc,policy:prior:greedy`) and `axes` (`depth:2,6,robustness:4`), by clicking.
 */
export async function pickEval(page: Page, methods: string, axes: string): Promise<void> {
  const want = new Set(methods.split(','));
  await page.locator('[data-testid=eval-method]').first().waitFor();
  for (const box of await page.locator('[data-testid=eval-method]').all()) {
    const id = (await box.getAttribute('data-method')) ?? '';
    if (await box.isEnabled()) await box.setChecked(want.has(id));
  }
  const values = new Set<string>();
  let axis = '';
  for (const part of axes.split(',')) {
    const m = /^([a-z]+):(\d+)$/.exec(part);
    if (m) axis = m[1] as string;
    values.add(`${axis}:${m ? m[2] : part}`);
  }
  for (const box of await page.locator('[data-testid=eval-axis]').all()) {
    const key = `${await box.getAttribute('data-axis')}:${await box.getAttribute('data-value')}`;
    await box.setChecked(values.has(key));
  }
}
