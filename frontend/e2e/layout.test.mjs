// At the default window size (1280x820) no screen and no table scrolls
// sideways, in either language: for each screen, document.scrollingElement
// and every element that holds a table (and every scrolling pane) is no
// wider inside than it is. Each screen is photographed in both languages
// into test-artifacts/layout-<screen>-<lang>.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureArtifacts, openApp, repoDir, stopAll, tempHome, waitFor } from './harness.mjs';

const home = tempHome();
const sampleDir = join(home, 'roots', 'sample');
const env = {
  ...process.env,
  HOME: join(home, 'home'),
  SPILLSCOPE_CONFIG_DIR: join(home, 'config'),
  SPILLSCOPE_DATA_DIR: join(home, 'data'),
  SPILLSCOPE_ROOTS: sampleDir,
};

function prepare() {
  const cli = join(repoDir, 'build', 'bin', 'spillscope');
  if (!existsSync(cli)) return `${cli} is missing (build it with: make build/bin/spillscope)`;
  for (const args of [['sample', '--out', sampleDir, '--scale', '3'], ['index', sampleDir]]) {
    const r = spawnSync(cli, args, { encoding: 'utf8', timeout: 180000, env, maxBuffer: 64 << 20 });
    if (r.status !== 0) return `"spillscope ${args[0]}" exited ${r.status}: ${(r.stderr || '').trim().slice(0, 300)}`;
  }
  return '';
}
const skipReason = prepare();

/** overflow lists what is wider inside than on screen: the page, every table's holder, every scrolling pane. */
const overflow = (page) =>
  page.evaluate(() => {
    const out = [];
    const check = (el, what) => {
      if (el && el.scrollWidth > el.clientWidth + 1) out.push(`${what}: scrollWidth ${el.scrollWidth} > clientWidth ${el.clientWidth}`);
    };
    check(document.scrollingElement, 'page');
    for (const t of document.querySelectorAll('table')) {
      const holder = t.parentElement;
      check(holder, `holder of table "${t.getAttribute('aria-label') ?? t.dataset.testid ?? t.className}" (${holder.className || holder.tagName})`);
      if (t.offsetWidth > holder.clientWidth + 1) out.push(`table "${t.getAttribute('aria-label') ?? t.className}" is ${t.offsetWidth}px in ${holder.clientWidth}px`);
    }
    for (const el of document.querySelectorAll('main, main *')) {
      const o = getComputedStyle(el).overflowX;
      if (o === 'auto' || o === 'scroll') check(el, `pane ${el.className || el.tagName}`);
    }
    return out;
  });

describe('no screen scrolls sideways at 1280x820', { skip: skipReason ? `setup failed: ${skipReason}` : false }, () => {
  let browser, page;
  before(async () => {
    ({ browser, page } = await openApp(env, { viewport: { width: 1280, height: 820 } }));
  });
  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  const nav = async (screen) => {
    await page.getByTestId('nav-' + screen).click();
    if ((await page.getByTestId('content').getAttribute('data-screen')) === screen && (await page.getByTestId('result-view').count())) {
      await page.getByTestId('nav-' + screen).click(); // back to the list
    }
  };
  // Each screen: how to reach it and what shows it has rendered.
  const screens = [
    ['largest', async () => nav('largest'), 'largest-row'],
    ['sessions', async () => nav('sessions'), 'session-row'],
    ['session', async () => {
      await nav('sessions');
      await page.getByTestId('session-order').selectOption('tokens');
      await page.getByTestId('session-open').first().click();
    }, 'result-row'],
    ['result', async () => {
      await nav('largest');
      await page.getByTestId('largest-open').first().click();
    }, 'projection-status'],
    ['search', async () => {
      await nav('search');
      await page.getByTestId('result-search-input').fill('the');
      await page.getByTestId('result-search-go').click();
    }, 'search-row'],
    ['sweep', async () => {
      await nav('sweep');
      await page.getByTestId('sweep-scope-all').click().catch(() => {});
      await page.getByTestId('sweep-budgets').fill('2000,5000,12500,25000,50000');
      await page.getByTestId('sweep-run').click();
    }, 'sweep-row'],
    ['links', async () => nav('links'), 'link-row'],
    ['playground', async () => nav('playground'), 'playground'],
    ['settings', async () => nav('settings'), 'root-row'],
  ];

  for (const lang of ['en', 'zh']) {
    for (const [name, reach, ready] of screens) {
      test(`${name} (${lang})`, async () => {
        await page.getByTestId('lang-' + lang).first().click();
        await reach();
        await page.getByTestId(ready).first().waitFor({ timeout: 30000 });
        await page.waitForTimeout(300); // let measured rows settle
        await page.screenshot({ path: join(ensureArtifacts(), `layout-${name}-${lang}.png`) });
        assert.deepEqual(await overflow(page), [], `${name} in ${lang} scrolls sideways`);
      });
    }
  }

  test('back to the largest results, in English', async () => {
    await page.getByTestId('lang-en').first().click();
    await nav('largest');
    await waitFor(() => page.getByTestId('largest-row').count(), 'rows', 10000);
  });
});
