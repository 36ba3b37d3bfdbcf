// The sweep names what it cuts, end to end: a generated sample corpus is
// indexed through the window (the summaries phase included); the budget sweep
// over the whole index draws its budgets on a log scale with dsh's shipped
// budget marked; clicking a point lists the results that budget cuts, and
// the list must equal what `spillscope sweep --cuts` prints for the same
// index; comparing with a larger budget lists what it keeps, equal to
// `--cuts --against`; and one cut result opens at the clicked budget.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureArtifacts, generateSample, homeEnv, indexNow, openApp, repoDir, stopAll, tempHome, waitFor } from './harness.mjs';

const cli = join(repoDir, 'build', 'bin', 'spillscope');
const budgets = [300, 1000, 3000, 12500, 40000];
const picked = 1000;
const against = 3000;

const home = tempHome();
const sampleDir = join(home, 'roots', 'sample');
const skipReason = generateSample(sampleDir);

/** cliCuts is the cut list the CLI prints for the window's index. */
function cliCuts(...args) {
  const r = spawnSync(cli, ['sweep', '--db', join(home, 'data', 'index.db'), '--stats', ...args], { encoding: 'utf8', timeout: 60000, maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.error?.message ?? r.stderr);
  assert.match(r.stderr, /from their summaries/);
  return JSON.parse(r.stdout);
}

describe('the sweep names what it cuts', { skip: skipReason ? `sample corpus unavailable: ${skipReason}` : false }, () => {
  let browser, page;
  const shots = ensureArtifacts();
  const shot = (name) => page.screenshot({ path: join(shots, `sweep-${name}.png`), fullPage: true });

  before(async () => {
    ({ browser, page } = await openApp(homeEnv(home, [sampleDir])));
    await indexNow(page, 120000);
    await page.getByTestId('nav-sweep').click();
    await page.getByTestId('sweep-scope-all').check();
    await page.getByTestId('sweep-budgets').fill(budgets.join(','));
    await page.getByTestId('sweep-run').click();
    await page.getByTestId('sweep-row').first().waitFor({ timeout: 120000 });
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  const rowsShown = () =>
    page.getByTestId('sweep-cut-row').evaluateAll((trs) =>
      trs.map((tr) => ({
        id: Number(tr.dataset.resultId),
        before: Number(tr.dataset.before),
        after: Number(tr.dataset.after),
        omitted: Number(tr.dataset.omitted),
        change: tr.dataset.change,
        recoverable: tr.querySelector('[data-testid=sweep-cut-recoverable]')?.getAttribute('data-recoverable') === 'true',
      })),
    );

  test('budgets sit on a log scale, with dsh’s shipped budget marked', async () => {
    const chart = page.getByTestId('sweep-chart');
    assert.equal(await chart.getAttribute('data-scale'), 'log');
    const xs = await page.getByTestId('sweep-point').evaluateAll((gs) =>
      gs.map((g) => ({ budget: Number(g.dataset.budget), x: Number(g.querySelector('circle').getAttribute('cx')) })),
    );
    assert.deepEqual(xs.map((p) => p.budget), budgets);
    // Equal ratios, equal distances: the gaps follow log(b2/b1).
    for (let i = 2; i < xs.length; i++) {
      const want = Math.log(xs[i].budget / xs[i - 1].budget) / Math.log(xs[1].budget / xs[0].budget);
      const got = (xs[i].x - xs[i - 1].x) / (xs[1].x - xs[0].x);
      assert.ok(Math.abs(got - want) < 0.01, `gap ${i}: ${got} for a ratio ${want}`);
    }
    const mark = page.getByTestId('sweep-mark');
    assert.equal(await mark.count(), 1);
    assert.equal(await mark.getAttribute('data-value'), '12500');
    await shot('chart');
  });

  test('a clicked point lists what its budget cuts, as `spillscope sweep --cuts` does', async () => {
    await page.locator(`[data-testid=sweep-point][data-budget="${picked}"]`).click();
    const panel = page.getByTestId('sweep-cuts');
    await panel.waitFor({ timeout: 30000 });
    await waitFor(async () => (await panel.getAttribute('aria-busy')) === 'false' && (await page.getByTestId('sweep-cuts-count').count()) === 1, 'the cut list', 60000);
    const printed = cliCuts('--cuts', String(picked));
    assert.equal(printed.budget, picked);
    assert.ok(printed.rows.length > 0, 'the sample has results over 1,000 tokens');
    const n = Number(await page.getByTestId('sweep-cuts-count').getAttribute('data-n'));
    assert.equal(n, printed.rows.length);
    // The sweep row's replaced count is the cut list's length.
    const replaced = await page.locator(`[data-testid=sweep-row][data-budget="${picked}"] td`).nth(2).textContent();
    assert.equal(Number(replaced.replace(/\D/g, '')), printed.rows.length);
    await waitFor(async () => (await rowsShown()).length === printed.rows.length, 'every cut row drawn', 20000);
    const shown = await rowsShown();
    assert.deepEqual(
      shown.map(({ change, ...r }) => r),
      printed.rows.map((r) => ({ id: r.resultId, before: r.tokensBefore, after: r.at.tokensAfter, omitted: r.at.omittedBytes, recoverable: r.at.recoverable })),
    );
    for (const r of shown) assert.ok(r.after < r.before, `result ${r.id}: ${r.after} tokens left of ${r.before}`);
    await shot('cuts');
  });

  test('against a larger budget it lists what that one keeps, as `--against` does', async () => {
    await page.getByTestId('sweep-against').selectOption(String(against));
    await waitFor(async () => {
      const rows = await rowsShown();
      return rows.length > 0 && rows.every((r) => r.change !== '');
    }, 'the difference', 60000);
    const printed = cliCuts('--cuts', String(picked), '--against', String(against));
    const shown = await rowsShown();
    assert.deepEqual(
      shown.map((r) => [r.id, r.change]),
      printed.rows.map((r) => [r.resultId, r.change]),
    );
    const only = Number(await page.getByTestId('sweep-cuts-count').getAttribute('data-only'));
    assert.equal(only, printed.only);
    assert.ok(printed.only > 0, `${against} keeps some result ${picked} cuts`);
    assert.equal(shown[0].change, 'only', 'what the larger budget keeps comes first');
    await shot('difference');
  });

  test('a cut result opens at the clicked budget, and back returns to the list', async () => {
    const first = page.getByTestId('sweep-cut-row').first();
    const id = Number(await first.getAttribute('data-result-id'));
    const after = Number(await first.getAttribute('data-after'));
    await first.getByTestId('sweep-cut-open').click();
    await page.getByTestId('result-view').waitFor({ timeout: 20000 });
    assert.equal(await page.getByTestId('budget-input').inputValue(), String(picked));
    assert.equal(await page.getByTestId('policy-select').inputValue(), 'dsh-tokens');
    await waitFor(async () => (await page.getByTestId('projection').getAttribute('aria-busy')) === 'false', 'the projection', 30000);
    const status = await page.getByTestId('projection-status').getAttribute('data-status');
    assert.ok(['replaced', 'notice_only'].includes(status), `opened result ${id} is ${status}`);
    assert.equal(Number(await page.getByTestId('token-total').getAttribute('data-value')), after);
    await shot('opened');
    await page.getByTestId('result-back').click();
    await page.getByTestId('sweep-cuts').waitFor({ timeout: 10000 });
    assert.ok((await rowsShown()).some((r) => r.id === id), 'the cut list is still there');
  });
});
