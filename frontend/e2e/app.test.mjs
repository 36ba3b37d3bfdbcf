// End to end in a real browser: the dev-tagged app under Xvfb serves the real
// frontend with live Go bindings; headless Chromium drives it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  ensureArtifacts, openApp, readJSON, stopAll, tempHome, waitFor,
} from './harness.mjs';

describe('app in a browser', () => {
  let browser, page, home;

  before(async () => {
    home = tempHome();
    ({ browser, page } = await openApp(
      {
        ...process.env,
        HOME: join(home, 'home'),
        SPILLSCOPE_CONFIG_DIR: join(home, 'config'),
        SPILLSCOPE_DATA_DIR: join(home, 'data'),
        SPILLSCOPE_ROOTS: [join(home, 'roots', 'present'), join(home, 'roots', 'absent')].join(':'),
      },
      { waitBindings: false },
    ));
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  test('shows the version and roots that Go returned', async () => {
    await page.getByTestId('app-version').waitFor({ timeout: 30000 });
    const goInfo = await page.evaluate(() => window.go.app.App.Info());
    assert.match(goInfo.version, /^\d+\.\d+\.\d+/);
    assert.equal(await page.getByTestId('app-version').textContent(), goInfo.version);
    const rows = page.getByTestId('root-row');
    assert.equal(await rows.count(), 2);
    assert.equal(await rows.nth(0).getAttribute('data-exists'), 'true');
    assert.equal(await rows.nth(1).getAttribute('data-exists'), 'false');
    assert.ok((await rows.nth(0).textContent()).includes(join(home, 'roots', 'present')));
    assert.ok((await page.textContent('main')).includes('found'));
  });

  test('switches to Chinese, persists it, and keeps it after a reload', async () => {
    await page.getByTestId('lang-zh').click();
    await page.getByRole('heading', { name: '概览' }).waitFor({ timeout: 10000 });
    assert.equal(await page.getByTestId('nav-sessions').textContent(), '会话');
    await waitFor(() => {
      try {
        return readJSON(join(home, 'config', 'settings.json')).language === 'zh';
      } catch {
        return false;
      }
    }, 'settings.json to record zh', 10000);
    await page.reload();
    await page.getByRole('heading', { name: '概览' }).waitFor({ timeout: 30000 });
    assert.equal(await page.getByTestId('nav-overview').textContent(), '概览');
    await page.screenshot({ path: join(ensureArtifacts(), 'e2e-overview-zh.png') });
    await page.getByTestId('lang-en').click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor({ timeout: 10000 });
  });

  test('shows empty states for screens without data', async () => {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('empty-state').waitFor();
    assert.match(await page.getByTestId('empty-state').textContent(), /No sessions indexed yet/);
  });
});
