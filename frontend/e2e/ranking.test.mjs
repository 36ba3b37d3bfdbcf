// Ranking before and after the token phase, in a real browser: the sample is
// indexed by the command line with --structure-only into the app's data
// folder, so the window opens on approximate figures (marked ≈); "Index now"
// runs the token phase and every figure turns exact.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openApp, repoDir, stopAll, tempHome, waitFor } from './harness.mjs';

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
  for (const args of [['sample', '--out', sampleDir], ['index', '--structure-only', sampleDir]]) {
    const r = spawnSync(cli, args, { encoding: 'utf8', timeout: 120000, env });
    if (r.status !== 0) return `"spillscope ${args[0]}" exited ${r.status}: ${(r.stderr || '').trim().slice(0, 300)}`;
  }
  return '';
}
const skipReason = prepare();

describe('ranking before and after the token phase', { skip: skipReason ? `setup failed: ${skipReason}` : false }, () => {
  let browser, page;

  before(async () => {
    ({ browser, page } = await openApp(env));
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  const rowsOf = () =>
    page.getByTestId('largest-row').evaluateAll((trs) =>
      trs.map((tr) => ({ id: Number(tr.dataset.resultId), tokens: Number(tr.dataset.tokens), exact: tr.dataset.exact, text: tr.textContent })),
    );
  const sorted = (rows) => rows.every((r, i) => i === 0 || rows[i - 1].tokens >= r.tokens);

  test('approximate figures first, marked ≈, then exact ones after "Index now"', async () => {
    // A new user opens on the largest results.
    await page.getByTestId('largest-row').first().waitFor({ timeout: 20000 });
    const approx = await rowsOf();
    assert.ok(approx.length > 0);
    assert.ok(approx.every((r) => r.exact === 'false'), 'every figure approximate after a structure-only pass');
    assert.ok(approx.every((r) => r.text.includes('≈')), 'approximate figures are marked ≈');
    assert.ok(sorted(approx), `sorted by the approximation: ${approx.map((r) => r.tokens)}`);
    // The Go side agrees: nothing counted yet.
    const counted = await page.evaluate(async () => (await window.go.app.Sessions.Largest({ offset: 0, limit: 1000 })).rows.filter((r) => r.tokensExact).length);
    assert.equal(counted, 0);

    await page.mouse.move(5, 5); // off the list: it must be free to reorder
    await page.getByTestId('index-start').click();
    await waitFor(async () => (await page.getByTestId('index-panel').getAttribute('data-running')) === 'false', 'indexing to finish', 60000);
    await waitFor(async () => (await rowsOf()).every((r) => r.exact === 'true'), 'exact figures in the list', 20000);
    const exact = await rowsOf();
    assert.ok(sorted(exact), `sorted by the exact count: ${exact.map((r) => r.tokens)}`);
    assert.ok(exact.every((r) => !r.text.includes('≈')), 'no ≈ once counted');
    const fromGo = await page.evaluate(async (n) => (await window.go.app.Sessions.Largest({ offset: 0, limit: n })).rows.map((r) => [r.id, r.tokens, r.estimatedTokens]), exact.length);
    assert.deepEqual(exact.map((r) => [r.id, r.tokens, r.tokens]), fromGo, 'the list shows what Go ranks, exact counts');
    const changed = approx.filter((a) => exact.find((e) => e.id === a.id)?.tokens !== a.tokens).length;
    assert.ok(changed > 0, 'the exact counts replaced the approximations');
  });
});
