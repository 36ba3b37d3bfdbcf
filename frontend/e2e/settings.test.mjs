// Settings in the window, remembered across restarts: a session folder
// added by its path is indexed, re-run defaults are saved, and the window
// reopens on the result and budget it was left at. The app runs without
// SPILLSCOPE_ROOTS here, so the folders chosen in the window decide.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureArtifacts, harnessRoots, openApp, readJSON, repoDir, stopAll, tempHome, waitFor } from './harness.mjs';

const home = tempHome();
const sampleDir = join(home, 'elsewhere', 'agent-logs');
const env = { ...process.env, HOME: join(home, 'home'), SPILLSCOPE_CONFIG_DIR: join(home, 'config'), SPILLSCOPE_DATA_DIR: join(home, 'data') };
delete env.SPILLSCOPE_ROOTS;
const settingsFile = join(home, 'config', 'settings.json');
const saved = () => {
  try {
    return readJSON(settingsFile);
  } catch {
    return null;
  }
};

function prepare() {
  const cli = join(repoDir, 'build', 'bin', 'spillscope');
  if (!existsSync(cli)) return `${cli} is missing (build it with: make build/bin/spillscope)`;
  const r = spawnSync(cli, ['sample', '--out', sampleDir], { encoding: 'utf8', timeout: 120000 });
  return r.status === 0 ? '' : `"spillscope sample" exited ${r.status}: ${(r.stderr || '').slice(0, 300)}`;
}
const skipReason = prepare();

describe('settings, remembered across restarts', { skip: skipReason ? `setup failed: ${skipReason}` : false }, () => {
  let browser, page;
  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  test('a new user sees each harness’s usual places and none chosen', async () => {
    ({ browser, page } = await openApp(env, { viewport: { width: 1280, height: 820 } }));
    await page.getByTestId('largest').waitFor({ timeout: 30000 });
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('roots-none').waitFor({ timeout: 20000 });
    const defaults = await page.locator('[data-testid=roots-default] [data-testid=root-row]').evaluateAll((trs) =>
      trs.map((tr) => ({ path: tr.querySelector('code').textContent, source: tr.dataset.source, exists: tr.dataset.exists })),
    );
    // One row for each place the harness registry names under this home
    // (none of them made here), as the command line lists them.
    const usual = harnessRoots(env);
    assert.ok(usual.length > 0, 'the registry lists default roots');
    assert.deepEqual(defaults, usual.map((r) => ({ path: r.path, source: 'default', exists: 'false' })));
    // With none chosen and no SPILLSCOPE_ROOTS, the usual places are what is indexed.
    const indexed = await page.locator('[data-testid=roots] [data-testid=root-row]').evaluateAll((trs) => trs.map((tr) => [tr.dataset.source, tr.querySelector('code').textContent]));
    assert.deepEqual(indexed, usual.map((r) => ['default', r.path]));
    assert.equal(await page.getByTestId('roots-from-env').count(), 0);
  });

  test('a folder added by its path is saved, shown as found and indexed', async () => {
    await page.getByTestId('root-input').fill(sampleDir + '/');
    await page.getByTestId('root-add').click();
    const row = page.locator('[data-testid=roots-saved] [data-testid=root-row]');
    await row.first().waitFor({ timeout: 10000 });
    assert.equal(await row.count(), 1);
    assert.equal(await row.first().getAttribute('data-exists'), 'true');
    assert.ok((await row.first().textContent()).includes(sampleDir));
    const indexed = await page.locator('[data-testid=roots] [data-testid=root-row]').evaluateAll((trs) => trs.map((tr) => tr.dataset.source));
    assert.deepEqual(indexed, ['settings']);
    assert.deepEqual(saved()?.roots, [sampleDir]);
    await page.screenshot({ path: join(ensureArtifacts(), 'settings-roots.png') });

    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('index-start').click();
    await page.getByTestId('session-row').first().waitFor({ timeout: 60000 });
    await waitFor(async () => (await page.getByTestId('index-panel').getAttribute('data-running')) === 'false', 'indexing to finish', 60000);
  });

  test('re-run defaults are saved and start the playground', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('default-budget').fill('3000');
    await page.getByTestId('default-estimator').selectOption('cl100k_base');
    await page.getByTestId('default-read-tools').fill('view, cat');
    await page.getByTestId('defaults-save').click();
    await page.getByTestId('defaults-saved').waitFor({ timeout: 10000 });
    assert.deepEqual(saved()?.defaults, { budget: 3000, route: '', estimator: 'cl100k_base', readTools: ['view', 'cat'] });
    await page.getByTestId('nav-playground').click();
    await waitFor(async () => (await page.getByTestId('estimator-select').inputValue()) === 'cl100k_base', 'the default estimator in the playground', 10000);
  });

  let resultId = 0;
  test('the place is remembered: session, result and budget', async () => {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('session-order').selectOption('tokens');
    await page.getByTestId('session-open').first().click();
    await page.getByTestId('result-row').first().waitFor({ timeout: 20000 });
    resultId = Number(await page.getByTestId('result-row').first().getAttribute('data-result-id'));
    await page.getByTestId('result-open').first().click();
    await page.getByTestId('result-view').waitFor();
    await page.getByTestId('budget-input').fill('1500');
    await waitFor(() => saved()?.last?.resultId === resultId && saved()?.last?.budget === 1500, 'the place in settings.json', 10000);
    assert.equal(saved().last.screen, 'sessions');
    assert.ok(saved().last.sessionId > 0);
  });

  test('after a restart the window opens where it was left', async () => {
    const sessionId = saved().last.sessionId;
    await browser.close();
    await stopAll();
    ({ browser, page } = await openApp(env, { viewport: { width: 1280, height: 820 } }));
    await page.getByTestId('result-view').waitFor({ timeout: 30000 });
    await waitFor(async () => (await page.getByTestId('budget-input').inputValue()) === '1500', 'the remembered budget', 10000);
    const shown = await page.evaluate(() => document.querySelector('[data-testid=result-view]') && true);
    assert.ok(shown);
    const detail = await page.evaluate((id) => window.go.app.Sessions.Result({ id, reveal: false }), resultId);
    assert.match(await page.getByTestId('result-view').textContent(), new RegExp(detail.row.tool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    // Escape goes up to the session it came from, also after a restart.
    await page.keyboard.press('Escape');
    await page.getByTestId('session-view').waitFor({ timeout: 10000 });
    assert.equal(saved().last.sessionId, sessionId);
    await page.screenshot({ path: join(ensureArtifacts(), 'settings-restored.png') });
  });

  test('removing the folder leaves the usual places to index', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('root-remove').click();
    await page.getByTestId('roots-none').waitFor({ timeout: 10000 });
    assert.deepEqual(saved()?.roots, []);
    const indexed = await page.locator('[data-testid=roots] [data-testid=root-row]').evaluateAll((trs) => trs.map((tr) => [tr.dataset.source, tr.querySelector('code').textContent]));
    assert.deepEqual(indexed, harnessRoots(env).map((r) => ['default', r.path]));
  });
});
