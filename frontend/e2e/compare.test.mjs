// "Compare policies" end to end: a generated sample corpus is indexed
// through the window; on its largest result three policies are compared at
// one slider position with one parameter edited, and every column's figures
// in the real browser must equal what `spillscope compare --result` prints
// for the same result, policies and settings. Then the budget sweep runs the
// three policies over the whole index and shows one series each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureArtifacts, generateSample, homeEnv, indexNow, openApp, repoDir, stopAll, tempHome, waitFor } from './harness.mjs';

const cli = join(repoDir, 'build', 'bin', 'spillscope');
const wanted = ['dsh-tokens', 'opencode', 'gemini-cli'];
const slider = 3000;

const home = tempHome();
const sampleDir = join(home, 'roots', 'sample');
const skipReason = generateSample(sampleDir);

describe('compare policies over a sample corpus', { skip: skipReason ? `sample corpus unavailable: ${skipReason}` : false }, () => {
  let browser, page;
  const shots = ensureArtifacts();
  const shot = (name) => page.screenshot({ path: join(shots, `compare-${name}.png`) });

  before(async () => {
    ({ browser, page } = await openApp(homeEnv(home, [sampleDir])));
    await indexNow(page, 90000);
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  const columns = () => page.getByTestId('compare-column').evaluateAll((els) => els.map((e) => e.dataset.policy));

  test('three policies on one result equal `spillscope compare` on it', async () => {
    await page.getByTestId('nav-largest').click();
    await page.getByTestId('largest-open').first().click();
    await page.getByTestId('result-view').waitFor({ timeout: 20000 });
    await page.getByTestId('compare-toggle').click();
    const panel = page.getByTestId('compare-panel');
    await panel.waitFor();
    const rid = await panel.getAttribute('data-result-id');
    await page.getByTestId('compare-column').first().waitFor({ timeout: 20000 });

    // The defaults (the session's own harness's policy and dsh-tokens),
    // then exactly the three wanted, in order.
    const defaults = await columns();
    assert.ok(defaults.includes('dsh-tokens'), `default columns ${defaults}`);
    for (const p of wanted) {
      if ((await columns()).includes(p)) continue;
      await page.getByTestId('compare-add-select').selectOption(p);
      await page.getByTestId('compare-add').click();
      await waitFor(async () => (await columns()).includes(p), `a ${p} column`, 20000);
    }
    for (;;) {
      const cur = await columns();
      const extra = cur.findIndex((p) => !wanted.includes(p));
      if (extra < 0) break;
      await page.getByTestId('compare-remove').nth(extra).click();
      await waitFor(async () => (await columns()).length === cur.length - 1, 'the column to go', 20000);
    }
    const order = await columns();
    assert.deepEqual([...order].sort(), [...wanted].sort());

    await page.getByTestId('compare-slider-input').fill(String(slider));
    const oc = page.locator('[data-testid=compare-column][data-policy=opencode]');
    await oc.getByTestId('compare-params').locator('summary').click();
    await oc.getByTestId('param-direction').selectOption('tail');
    // Settled: every column mapped from the slider and the opencode one tailing.
    await waitFor(async () => {
      if ((await panel.getAttribute('aria-busy')) !== 'false' || (await panel.getAttribute('data-slider')) !== String(slider)) return false;
      const maps = await page.getByTestId('compare-mapping').allTextContents();
      return maps.length === 3 && maps.every((m) => m.includes('3,000 tokens')) && JSON.parse((await oc.getAttribute('data-params')) || '{}').direction === 'tail';
    }, 'the comparison to settle at the slider', 30000);
    await waitFor(async () => (await panel.getAttribute('aria-busy')) === 'false', 'the last answer', 10000);
    await shot('three-policies');

    const shown = await page.getByTestId('compare-column').evaluateAll((els) =>
      els.map((e) => {
        const d = (id, attr) => Number(e.querySelector(`[data-testid=${id}]`)?.getAttribute(attr));
        return {
          policy: e.dataset.policy,
          status: e.querySelector('[data-testid=compare-status]')?.getAttribute('data-status'),
          own: d('compare-own', 'data-value'),
          yardstick: d('compare-yard', 'data-value'),
          omittedBytes: d('compare-omitted', 'data-bytes'),
          omittedLines: d('compare-omitted', 'data-lines'),
          lost: d('compare-lost', 'data-bytes'),
          recoverable: d('compare-recoverable', 'data-bytes'),
          kinds: [...e.querySelectorAll('[data-testid=compare-part]')].map((p) => p.dataset.kind),
        };
      }),
    );

    const r = spawnSync(
      cli,
      ['compare', '--result', rid, '--db', join(home, 'data', 'index.db'), '--policies', order.join(','), '--budget', String(slider), '--param', 'opencode.direction=tail'],
      { encoding: 'utf8', timeout: 60000, maxBuffer: 512 << 20 },
    );
    assert.equal(r.status, 0, r.error?.message ?? r.stderr);
    const printed = JSON.parse(r.stdout);
    assert.equal(printed.columns.length, 3);
    for (const [i, want] of printed.columns.entries()) {
      const got = shown[i];
      assert.equal(got.policy, want.policy);
      assert.equal(got.status, want.status, `${want.policy} status`);
      assert.equal(got.own, want.tokens.total, `${want.policy} own estimate`);
      assert.equal(got.yardstick, want.yardstick.total, `${want.policy} on the yardstick`);
      assert.equal(got.omittedBytes, want.omitted.bytes, `${want.policy} omitted bytes`);
      assert.equal(got.omittedLines, want.omitted.lines, `${want.policy} omitted lines`);
      assert.equal(got.lost, want.lost.bytes, `${want.policy} lost`);
      assert.equal(got.recoverable, want.recoverable.bytes, `${want.policy} recoverable`);
      assert.equal(want.yardstick.estimator, printed.yardstick, 'one yardstick');
      if (want.status === 'replaced') assert.ok(got.kinds.includes('notice') || got.kinds.includes('omitted'), `${want.policy} shows its notice or marker: ${got.kinds}`);
    }
    assert.equal(printed.columns.find((c) => c.policy === 'opencode').params.direction, 'tail');
    assert.ok(printed.columns.some((c) => c.status === 'replaced' || c.status === 'notice_only'), 'at 3,000 tokens something is cut');
  });

  test('the sweep gives one series per policy over the index', async () => {
    await page.getByTestId('nav-sweep').click();
    await page.getByTestId('sweep-scope-all').check();
    await page.getByTestId('sweep-budgets').fill('500,3000,20000');
    await page.getByTestId('sweep-policies').fill(wanted.join(', '));
    await page.getByTestId('sweep-run').click();
    await page.getByTestId('sweep-series-row').first().waitFor({ timeout: 120000 });
    const rows = await page.getByTestId('sweep-series-row').evaluateAll((trs) =>
      trs.map((tr) => ({ policy: tr.dataset.policy, cells: [...tr.querySelectorAll('[data-testid=sweep-series-cell]')].map((c) => Number(c.dataset.yardstick)) })),
    );
    assert.deepEqual(rows.map((r) => r.policy), wanted);
    for (const r of rows) {
      assert.equal(r.cells.length, 3);
      assert.ok(r.cells[0] <= r.cells[2], `${r.policy}: more budget never shows less (${r.cells})`);
    }
    await shot('sweep-series');
  });
});
