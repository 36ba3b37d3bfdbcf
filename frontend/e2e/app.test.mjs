// End to end in a real browser: the dev-tagged app under Xvfb serves the real
// frontend with live Go bindings; headless Chromium drives it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  ensureArtifacts, harnessRoots, openApp, readJSON, stopAll, tempHome, waitFor,
} from './harness.mjs';

describe('app in a browser', () => {
  let browser, page, home, env;

  before(async () => {
    home = tempHome();
    env = {
      ...process.env,
      HOME: join(home, 'home'),
      SPILLSCOPE_CONFIG_DIR: join(home, 'config'),
      SPILLSCOPE_DATA_DIR: join(home, 'data'),
      SPILLSCOPE_ROOTS: [join(home, 'roots', 'present'), join(home, 'roots', 'absent')].join(':'),
    };
    ({ browser, page } = await openApp(env, { waitBindings: false }));
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  test('a new user lands on the largest results, with version and platform in the About line', async () => {
    await page.getByTestId('largest').waitFor({ timeout: 30000 });
    assert.equal(await page.getByTestId('nav-largest').getAttribute('aria-current'), 'page');
    const goInfo = await page.evaluate(() => window.go.app.App.Info());
    assert.match(goInfo.version, /^\d+\.\d+\.\d+/);
    await page.getByTestId('about-line').waitFor();
    assert.equal(await page.getByTestId('about-line').textContent(), `Spillscope ${goInfo.version} · ${goInfo.platform}`);
  });

  test('settings show the roots Go returned, which exist, and who chose them', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('app-version').waitFor({ timeout: 30000 });
    const goInfo = await page.evaluate(() => window.go.app.App.Info());
    assert.equal(await page.getByTestId('app-version').textContent(), goInfo.version);
    const rows = page.locator('[data-testid=roots] [data-testid=root-row]');
    assert.equal(await rows.count(), 2);
    assert.equal(await rows.nth(0).getAttribute('data-exists'), 'true');
    assert.equal(await rows.nth(1).getAttribute('data-exists'), 'false');
    assert.equal(await rows.nth(0).getAttribute('data-source'), 'env');
    assert.ok((await rows.nth(0).textContent()).includes(join(home, 'roots', 'present')));
    await page.getByTestId('roots-from-env').waitFor();
    // Each harness's usual places, as the registry lists them for this home
    // (asked of the command line, which reads the same registry).
    const want = harnessRoots(env);
    assert.ok(want.length > 0, 'the registry lists default roots');
    const shown = await page.locator('[data-testid=roots-default] [data-testid=root-row]').evaluateAll((trs) =>
      trs.map((tr) => ({ harness: tr.cells[0].textContent.trim(), path: tr.querySelector('code').textContent, exists: tr.dataset.exists === 'true', source: tr.dataset.source })),
    );
    assert.deepEqual(shown, want.map((r) => ({ ...r, source: 'default' })));
  });

  test('switches to Chinese, persists it, and keeps it after a reload', async () => {
    await page.getByTestId('lang-zh').click();
    await page.getByRole('heading', { name: '设置', exact: true }).waitFor({ timeout: 10000 });
    assert.equal(await page.getByTestId('nav-sessions').textContent(), '会话');
    await waitFor(() => {
      try {
        const s = readJSON(join(home, 'config', 'settings.json'));
        return s.language === 'zh' && s.last.screen === 'settings';
      } catch {
        return false;
      }
    }, 'settings.json to record zh and the settings screen', 10000);
    await page.reload();
    // The window reopens where it was left: the settings, in Chinese.
    await page.getByRole('heading', { name: '设置', exact: true }).waitFor({ timeout: 30000 });
    assert.equal(await page.getByTestId('nav-largest').textContent(), '最大结果');
    await page.screenshot({ path: join(ensureArtifacts(), 'e2e-settings-zh.png') });
    await page.getByTestId('lang-en').click();
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor({ timeout: 10000 });
  });

  test('shows empty states for screens without data', async () => {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('empty-state').waitFor();
    assert.match(await page.getByTestId('empty-state').textContent(), /No sessions indexed yet/);
    await page.getByTestId('nav-largest').click();
    await page.getByTestId('largest-none').waitFor();
  });

  test('a failed call reaches the screen as a translated sentence, in both languages', async () => {
    const err = await page.evaluate(() => window.go.app.Sessions.Search({ query: 'x', order: 'size', offset: 0, limit: 10 }).then(() => null, (e) => e));
    assert.deepEqual({ code: err.code, order: err.params?.order }, { code: 'order-unknown', order: 'size' });
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('root-input').fill('/no/such/folder/anywhere');
    await page.getByTestId('root-add').click();
    const box = page.getByTestId('failure');
    await box.waitFor({ timeout: 10000 });
    assert.equal(await box.getAttribute('data-code'), 'root-not-folder');
    assert.match(await box.locator('strong').textContent(), /^\/no\/such\/folder\/anywhere is not a folder on this machine\.$/);
    await page.getByTestId('lang-zh').click();
    await waitFor(async () => /不是本机上的文件夹/.test(await box.locator('strong').textContent()), 'the Chinese sentence', 10000);
    await page.getByTestId('lang-en').click();
  });
});
