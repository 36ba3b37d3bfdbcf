// The product's screens end to end: a generated sample corpus is indexed
// through the window, then a session, a result and its re-run at another
// budget, the Chinese labels, the links audit and a sweep are checked in a
// real browser against the live Go bindings.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ensureArtifacts, generateSample, homeEnv, indexNow, openApp, stopAll, tempHome, waitFor } from './harness.mjs';

// A signed-URL parameter followed by a value: a credential the screen must never show.
// The placeholders the screens write instead of a value ([redacted] in text, … in a redacted URI) are no value.
const signedValue = /X-Amz-Signature=(?!\[redacted\]|…)[^&\s"'<>]+/i;

const home = tempHome();
const sampleDir = join(home, 'roots', 'sample');
const skipReason = generateSample(sampleDir);

describe('screens over a sample corpus', { skip: skipReason ? `sample corpus unavailable: ${skipReason}` : false }, () => {
  let browser, page;
  const shots = ensureArtifacts();
  const shot = (name) => page.screenshot({ path: join(shots, `screens-${name}.png`) });

  before(async () => {
    ({ browser, page } = await openApp(homeEnv(home, [sampleDir])));
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  test('indexes the sample through "Index now" and lists its sessions', async () => {
    await indexNow(page, 60000);
    const totals = await page.getByTestId('index-totals').textContent();
    assert.match(totals, /\d+ sessions · \d+ tool results/);
    // The list header counts sessions as the totals do (a subagent shares its parent's id), transcripts beside.
    await waitFor(async () => {
      const head = await page.getByTestId('session-count').textContent();
      return head.match(/^(\d+) sessions/)?.[1] === totals.match(/(\d+) sessions/)[1];
    }, 'the list header and the totals to agree on the session count', 10000);
    const head = await page.getByTestId('session-count').textContent();
    const transcripts = Number(head.match(/(\d+) transcripts/)?.[1] ?? head.match(/^(\d+)/)[1]);
    assert.equal(transcripts, await page.getByTestId('session-row').count(), head);
    const rows = page.getByTestId('session-row');
    assert.ok((await rows.count()) >= 2, 'the sample holds several sessions');
    const harnesses = new Set(await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.harness)));
    assert.ok(harnesses.size >= 2, `several harnesses, got ${[...harnesses]}`);
    await shot('sessions');

    // The skipped lines: one row per file and kind, each saying how many more it stands for; together
    // they are the totals' count.
    await page.getByTestId('index-panel').getByRole('button', { name: 'Show skipped lines' }).click();
    const items = page.locator('[data-testid=index-panel] .diag li');
    await items.first().waitFor({ timeout: 10000 });
    const counted = await items.evaluateAll((lis) =>
      lis.reduce((n, li) => n + 1 + Number(li.querySelector('[data-testid=diag-more]')?.textContent.match(/\d+/)?.[0] ?? 0), 0),
    );
    assert.equal(counted, Number(totals.match(/(\d+) skipped lines/)[1]), await items.allTextContents());
    const keys = await items.evaluateAll((lis) => lis.map((li) => `${li.querySelector('code').textContent.replace(/:\d+$/, '')} ${li.dataset.code}`));
    assert.equal(new Set(keys).size, keys.length, `one row per file and kind: ${keys}`);
    await page.getByTestId('index-panel').getByRole('button', { name: 'Hide skipped lines' }).click();
  });

  test('filters sessions by harness', async () => {
    const first = await page.getByTestId('session-row').first().getAttribute('data-harness');
    await page.getByTestId('harness-filter').selectOption(first);
    await waitFor(async () => {
      const hs = await page.getByTestId('session-row').evaluateAll((trs) => trs.map((tr) => tr.dataset.harness));
      return hs.length > 0 && hs.every((h) => h === first);
    }, `only ${first} sessions`, 10000);
    await page.getByTestId('harness-filter').selectOption('');
    await waitFor(async () => {
      const hs = await page.getByTestId('session-row').evaluateAll((trs) => trs.map((tr) => tr.dataset.harness));
      return new Set(hs).size >= 2;
    }, 'all sessions again', 10000);
    // Keyboard: arrows move between rows, Enter opens one, Escape comes back.
    await page.getByTestId('session-open').first().focus();
    await page.keyboard.press('ArrowDown');
    const second = await page.getByTestId('session-row').nth(1).getAttribute('data-session-id');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('tr')?.dataset.sessionId), second);
    await page.keyboard.press('Enter');
    await page.getByTestId('session-view').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('sessions-screen').waitFor();
  });

  test('finds tool results by their words, never by a credential value', async () => {
    await page.getByTestId('nav-search').click();
    const box = page.getByTestId('result-search-input');
    await box.fill('panic recovered');
    await page.getByTestId('result-search-go').click();
    await page.getByTestId('search-row').first().waitFor({ timeout: 20000 });
    assert.ok((await page.getByTestId('search-row').count()) >= 1);
    await box.fill('EXAMPLEAWSSIGNATURE000000000000000000000000000000000000000000000');
    await page.getByTestId('result-search-go').click();
    await page.getByTestId('result-search-none').waitFor({ timeout: 20000 });
    await box.fill('panic recovered');
    await page.getByTestId('result-search-go').click();
    await page.getByTestId('search-open').first().click();
    await page.getByTestId('result-view').waitFor({ timeout: 20000 });
    // The view opens at once and fills in when Go answers.
    await waitFor(async () => /panic recovered/.test(await page.getByTestId('result-view').textContent()), 'the result view to show the matched text', 20000);
    await page.getByTestId('result-back').click();
    await page.getByTestId('search-row').first().waitFor();
    await page.getByTestId('nav-sessions').click();
  });

  test('ranks tool results by tokens: largest list, session order, search order', async () => {
    await page.getByTestId('nav-largest').click();
    const tokensOf = (testid) => page.getByTestId(testid).evaluateAll((els) => els.map((el) => Number(el.dataset.tokens)));
    const nonIncreasing = (xs) => xs.every((x, i) => i === 0 || xs[i - 1] >= x);
    // Indexing finished (the first test waited for it), so every figure is the exact count.
    await page.getByTestId('largest-row').first().waitFor({ timeout: 20000 });
    const exact = await page.getByTestId('largest-row').evaluateAll((trs) => trs.map((tr) => tr.dataset.exact));
    assert.ok(exact.length > 0 && exact.every((e) => e === 'true'), `all exact after indexing: ${exact}`);
    assert.equal(await page.locator('[data-testid=largest] [data-approx]').count(), 0, 'no ≈ once counted');
    const top = await page.getByTestId('largest-row').evaluateAll((trs) => trs.map((tr) => ({ id: Number(tr.dataset.resultId), tokens: Number(tr.dataset.tokens) })));
    assert.ok(nonIncreasing(top.map((r) => r.tokens)), `largest list sorted: ${top.map((r) => r.tokens)}`);
    // Cross-check with every session's results, read through the bindings.
    const all = await page.evaluate(async () => {
      const out = [];
      for (const s of (await window.go.app.Sessions.List({ harness: '', search: '', order: '', limit: 1000, offset: 0 })).rows) {
        const page = await window.go.app.Sessions.Results({ sessionId: s.id, order: '', onlyNotices: false, offset: 0, limit: 1000 });
        for (const r of page.rows) out.push({ id: r.id, tokens: r.tokens, est: r.estimatedTokens });
      }
      return out;
    });
    assert.ok(all.every((r) => r.tokens === r.est), 'ranking figures are the exact counts');
    const want = all.map((r) => r.tokens).sort((a, b) => b - a).slice(0, top.length);
    assert.deepEqual(top.map((r) => r.tokens), want, 'the largest list is the top of every result');
    // The list counts every result and reaches the last one.
    assert.equal(await page.getByTestId('largest-table').getAttribute('data-total'), String(all.length));
    await page.getByTestId('largest-table').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await waitFor(async () => (await page.locator(`[data-testid=largest-row][data-index="${all.length - 1}"]`).count()) === 1, 'the last result', 10000);
    await shot('largest');
    await page.getByTestId('lang-zh').click();
    await page.getByText('最大的工具结果').waitFor({ timeout: 10000 });
    await shot('largest-zh');
    await page.getByTestId('lang-en').click();
    await page.getByText('Largest tool results').waitFor({ timeout: 10000 });

    // Sessions by tokens.
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('session-order').selectOption('tokens');
    await waitFor(async () => nonIncreasing(await tokensOf('session-tokens')), 'sessions sorted by tokens', 10000);
    await shot('sessions-ranked');
    const firstSession = await page.getByTestId('session-row').first().getAttribute('data-session-id');
    await page.getByTestId('session-order').selectOption('');

    // Search by tokens.
    await page.getByTestId('nav-search').click();
    await page.getByTestId('result-search-input').fill('the');
    await page.getByTestId('result-search-go').click();
    await page.getByTestId('search-row').first().waitFor({ timeout: 20000 });
    await page.getByTestId('result-search-order').selectOption('tokens');
    await waitFor(async () => {
      const xs = await tokensOf('search-tokens');
      return xs.length > 1 && nonIncreasing(xs);
    }, 'search results sorted by tokens', 10000);
    await page.getByTestId('result-search-order').selectOption('');

    // A session's results by tokens, then the biggest one opens.
    await page.getByTestId('nav-sessions').click();
    await page.locator(`[data-testid=session-row][data-session-id="${firstSession}"] [data-testid=session-open]`).click();
    await page.getByTestId('result-row').first().waitFor({ timeout: 20000 });
    await page.getByTestId('result-order').selectOption('tokens');
    await waitFor(async () => {
      const xs = await tokensOf('result-tokens');
      return xs.length > 0 && nonIncreasing(xs);
    }, 'session results sorted by tokens', 10000);
    await page.getByTestId('result-order').selectOption('');
    await page.getByTestId('nav-largest').click();
    await page.getByTestId('largest-table').evaluate((el) => (el.scrollTop = 0));
    await page.getByTestId('largest-open').first().click();
    await page.getByTestId('result-view').waitFor({ timeout: 20000 });
    await shot('largest-opened');
    await page.keyboard.press('Escape');
    await page.getByTestId('largest-table').waitFor();
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('session-row').first().waitFor();
  });

  test('opens a session and a result, and re-runs it at another budget', async () => {
    // The session whose tool results hold the most estimated tokens has the big text results.
    const ids = await page.getByTestId('session-row').evaluateAll((trs) =>
      trs
        .map((tr) => ({ id: tr.dataset.sessionId, est: Number((tr.querySelector('.est')?.textContent ?? '0').replace(/\D/g, '')) }))
        .sort((a, b) => b.est - a.est)
        .map((r) => r.id),
    );
    await page.locator(`[data-testid=session-row][data-session-id="${ids[0]}"] [data-testid=session-open]`).click();
    await page.getByTestId('result-row').first().waitFor({ timeout: 20000 });
    assert.match(await page.getByTestId('session-facts').textContent(), /[1-9]\d* model calls · \d+ compactions · \d+ API errors retried · \d+ aborted turns/);
    await shot('session');

    // The largest text-only result: images would bring pricing rules into the budget check.
    const rid = await page.getByTestId('result-row').evaluateAll((trs) =>
      trs
        .filter((tr) => tr.dataset.images === '0')
        .sort((a, b) => Number(b.dataset.textBytes) - Number(a.dataset.textBytes))[0]?.dataset.resultId,
    );
    assert.ok(rid, 'a text-only result exists');
    await page.locator(`[data-testid=result-row][data-result-id="${rid}"] [data-testid=result-open]`).click();
    await page.getByTestId('result-view').waitFor();
    await page.getByTestId('recorded-blocks').waitFor({ timeout: 20000 });

    const status = page.getByTestId('projection-status');
    const total = page.getByTestId('token-total');
    const settle = async (budget, what) => {
      await page.getByTestId('budget-input').fill(String(budget));
      await waitFor(async () => {
        const busy = await page.getByTestId('projection').getAttribute('aria-busy');
        const text = await page.getByTestId('priced-with').count();
        return busy === 'false' && text > 0 && (await page.getByTestId('projection').textContent()).includes(budget.toLocaleString('en-US'));
      }, what, 20000);
      return { status: await status.getAttribute('data-status'), total: Number(await total.getAttribute('data-value')) };
    };

    const roomy = await settle(1000000, 'a projection at a roomy budget');
    assert.equal(roomy.status, 'within_budget');
    const tight = await settle(3000, 'a projection at 3000 tokens');
    assert.notEqual(tight.status, roomy.status, 'the status changes with the budget');
    assert.ok(['replaced', 'notice_only'].includes(tight.status), `tight status ${tight.status}`);
    assert.notEqual(tight.total, roomy.total, 'the token total changes with the budget');
    assert.ok(tight.total <= 3000, `total ${tight.total} stays within the budget`);
    assert.ok((await page.locator('[data-testid=projection-blocks] [data-kind=notice]').count()) === 1, 'the notice is shown');
    const tighter = await settle(1500, 'a projection at 1500 tokens');
    assert.ok(tighter.total <= 1500, `total ${tighter.total} stays within 1500`);
    // Budget 0: the notice alone exceeds it, so the original stays whole. The core stops counting early,
    // but the token phase has counted this result on its route: the total is that exact count, not "≥".
    await page.getByTestId('budget-input').fill('0');
    await waitFor(async () => (await status.getAttribute('data-status')) === 'preserved', 'the preserved status at budget 0', 20000);
    const counted = await page.evaluate(async (id) => (await window.go.app.Sessions.Result({ id, reveal: false })).row.estimatedTokens, Number(rid));
    assert.ok(counted > 0, 'the result was counted by the token phase');
    await waitFor(async () => Number(await total.getAttribute('data-value')) === counted, `the total to be the counted ${counted}`, 20000);
    assert.equal(await total.getAttribute('data-lower-bound'), 'false');
    assert.doesNotMatch(await total.textContent(), /≥/);
    await page.getByTestId('budget-input').fill('1500');
    await waitFor(async () => (await status.getAttribute('data-status')) !== 'preserved', 'back to 1500 tokens', 20000);
    assert.match(await page.locator('#pane-rerun').textContent(), /Re-run at budget/);
    await shot('result');

    // "Off" means retention disabled: everything passes through.
    await page.getByTestId('budget-off').check();
    await waitFor(async () => (await status.getAttribute('data-status')) === 'disabled', 'the disabled status', 20000);
    await page.getByTestId('budget-off').uncheck();
    await settle(3000, 'back to 3000');
  });

  test('switches the screens to Chinese', async () => {
    await page.getByTestId('lang-zh').click();
    await page.getByRole('heading', { name: '按预算重新运行' }).waitFor({ timeout: 10000 });
    assert.equal(await page.getByTestId('nav-sessions').textContent(), '会话');
    assert.equal(await page.getByTestId('nav-sweep').textContent(), '预算扫描');
    assert.match(await page.locator('#pane-recorded').textContent(), /模型看到的内容/);
    const label = await page.getByTestId('projection-status').textContent();
    assert.ok(['已替换', '仅提示'].includes(label.trim()), `status label in Chinese, got ${label}`);
    assert.match(await page.getByTestId('projection').textContent(), /合计/);
    await shot('result-zh');
    await page.getByTestId('nav-links').click();
    await page.getByRole('heading', { name: '链接' }).waitFor();
    assert.match(await page.getByTestId('links-help').textContent(), /已知局限/);
    await page.getByTestId('lang-en').click();
    await page.getByRole('heading', { name: 'Links' }).waitFor({ timeout: 10000 });
  });

  test('shows a spill file beside its notice, and a missing one as a state', async () => {
    const toList = async () => {
      await page.getByTestId('nav-sessions').click();
      if (!(await page.getByTestId('sessions-screen').isVisible())) await page.getByTestId('nav-sessions').click();
      await page.getByTestId('session-row').first().waitFor();
    };
    await toList();
    const ids = await page.getByTestId('session-row').evaluateAll((trs) => trs.map((tr) => tr.dataset.sessionId));
    let found = 0, missing = 0;
    for (const id of ids) {
      if (found && missing) break;
      await toList();
      await page.locator(`[data-testid=session-row][data-session-id="${id}"] [data-testid=session-open]`).click();
      await page.getByTestId('session-view').waitFor();
      await waitFor(async () => (await page.getByTestId('result-row').count()) > 0 || (await page.getByText('recorded no tool results').count()) > 0, 'results', 10000);
      const cells = await page.getByTestId('notice-cell').evaluateAll((els) =>
        els.map((el) => ({ id: el.closest('tr').dataset.resultId, exists: el.dataset.fileExists === 'true', state: el.dataset.fileState })),
      );
      for (const c of cells) {
        // A notice into another session's spill folder is neither (dsh.test.mjs checks it).
        if (c.state !== 'exists' && c.state !== 'missing') continue;
        if ((c.exists && found) || (!c.exists && missing)) continue;
        await page.locator(`[data-testid=result-row][data-result-id="${c.id}"] [data-testid=result-open]`).click();
        const pane = page.getByTestId('spill-file');
        await pane.waitFor({ timeout: 20000 });
        await waitFor(async () => ['ready', 'missing'].includes(await pane.getAttribute('data-state')), 'the spill file pane', 20000);
        if (c.exists) {
          assert.equal(await pane.getAttribute('data-state'), 'ready');
          assert.ok((await page.getByTestId('file-text').textContent()).length > 0, 'the spill file has text');
          found++;
          await shot('result-spill');
        } else {
          assert.equal(await pane.getAttribute('data-state'), 'missing');
          await page.getByTestId('file-missing').waitFor();
          assert.equal(await pane.getByTestId('failure').count(), 0, 'a missing spill file is a state, not an error');
          missing++;
          await shot('result-spill-missing');
        }
        await page.keyboard.press('Escape');
        await page.getByTestId('session-view').waitFor();
      }
    }
    assert.ok(found > 0, 'a result whose spill file exists');
    assert.ok(missing > 0, 'a result whose spill file is missing');
  });

  test('lists links with reasons and parameter names, never a credential value', async () => {
    await page.getByTestId('nav-links').click();
    await page.getByTestId('link-row').first().waitFor({ timeout: 20000 });
    const hidden = page.locator('[data-testid=link-row][data-hidden=true]');
    assert.ok((await hidden.count()) >= 1, 'at least one hidden link');
    const reason = (await hidden.first().getByTestId('link-reason').textContent()).trim();
    assert.ok(reason.length > 10, `a hidden link says why: ${reason}`);
    const texts = await page.getByTestId('link-row').allTextContents();
    for (const t of texts) assert.doesNotMatch(t, signedValue);
    assert.doesNotMatch(await page.textContent('main'), signedValue);
    if ((await page.locator('[data-testid=link-row][data-in-text=true]').count()) > 0) {
      await page.getByTestId('links-in-text-note').waitFor();
    }
    await page.getByTestId('links-only-hidden').check();
    await waitFor(async () => {
      const flagged = await page.getByTestId('link-row').evaluateAll((trs) => trs.map((tr) => tr.dataset.flagged));
      return flagged.length > 0 && flagged.every((f) => f === 'true');
    }, 'only flagged links (each with a reason)', 10000);
    await page.getByTestId('links-only-hidden').uncheck();
    await shot('links');
  });

  test('checks a URI without echoing its credential', async () => {
    await page.getByTestId('link-check-input').fill(
      'https://bucket.s3.amazonaws.com/report.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=deadbeefcafe',
    );
    await page.getByTestId('link-check').click();
    const verdict = page.getByTestId('link-check-result');
    await verdict.waitFor({ timeout: 10000 });
    assert.equal(await verdict.getAttribute('data-shown'), 'stub');
    assert.match(await page.getByTestId('link-check-parameter').textContent(), /X-Amz-Signature/i);
    assert.doesNotMatch(await verdict.textContent(), signedValue);
    await page.getByTestId('link-check-input').fill('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    await page.getByTestId('link-check').click();
    await waitFor(async () => (await verdict.getAttribute('data-shown')) === 'line', 'a plain link to be shown', 10000);
  });

  test('sweeps budgets and refuses a bad budgets list with a clear message', async () => {
    await page.getByTestId('nav-sweep').click();
    await page.getByTestId('sweep-budgets').fill('12k, -5, abc');
    const err = page.getByTestId('sweep-error');
    await err.waitFor();
    const msg = await err.textContent();
    for (const part of ['12k', '-5', 'abc']) assert.ok(msg.includes(`“${part}”`), `names ${part}: ${msg}`);
    assert.equal(await page.getByTestId('sweep-run').isDisabled(), true);
    await page.getByTestId('sweep-budgets').fill('2000,5000,12500,25000,50000');
    await page.getByTestId('sweep-run').click();
    await page.getByTestId('sweep-row').first().waitFor({ timeout: 60000 });
    const budgets = await page.getByTestId('sweep-row').evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.budget)));
    assert.deepEqual(budgets, [2000, 5000, 12500, 25000, 50000]);
    await page.getByTestId('sweep-chart').waitFor();
    await shot('sweep');
  });

  test('projects pasted JSON in the playground', async () => {
    await page.getByTestId('nav-playground').click();
    const big = JSON.stringify({ content: [{ type: 'text', text: 'lorem ipsum dolor sit amet '.repeat(1200) }] });
    await page.getByTestId('playground-json').fill(big);
    await page.getByTestId('budget-input').fill('2000');
    await waitFor(async () => (await page.getByTestId('projection-status').getAttribute('data-status')) === 'replaced', 'a replaced projection', 45000);
    const total = Number(await page.getByTestId('token-total').getAttribute('data-value'));
    assert.ok(total > 0 && total <= 2000, `total ${total}`);
    await shot('playground');
  });
});
