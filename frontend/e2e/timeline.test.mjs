// The session timeline end to end: a sample session's timeline drawn (the
// prompt line, the ceiling, a compaction, result marks and a subagent's
// lane), its figures the CLI's, a click on a result mark opening that
// result, the labels in Chinese; and a 10,000-call session's timeline
// drawn, with its render time taken from the page and a browser trace.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binary, ensureArtifacts, generateSample, homeEnv, indexNow, openApp, repoDir, stopAll, tempHome, waitFor } from './harness.mjs';

const home = tempHome();
const sampleDir = join(home, 'roots', 'sample');
const bigDir = join(home, 'roots', 'big');
const skipReason = generateSample(sampleDir);
const BIG_CALLS = 10000;

// writeBig writes a Claude Code transcript of n calls, each carrying the
// result of the tool the call before it ran, its prompt growing by it.
function writeBig(dir, n) {
  const folder = join(dir, 'projects', '-home-dev-work-big');
  mkdirSync(folder, { recursive: true });
  const lines = [];
  const t0 = Date.parse('2026-03-01T08:00:00Z');
  let prompt = 12000;
  for (let i = 0; i < n; i++) {
    const ts = new Date(t0 + i * 4000).toISOString();
    lines.push(JSON.stringify({
      type: 'assistant', sessionId: 'big-session', cwd: '/home/dev/work/big', timestamp: ts, requestId: `req_${i}`, uuid: `a${i}`,
      message: { id: `msg_${i}`, model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: i % 3 ? 'Read' : 'Bash', input: {} }],
        usage: { input_tokens: 5, output_tokens: 12, cache_read_input_tokens: prompt - 5, cache_creation_input_tokens: 0 } },
    }));
    const text = `output ${i} `.repeat(1 + (i % 7));
    lines.push(JSON.stringify({
      type: 'user', sessionId: 'big-session', timestamp: new Date(t0 + i * 4000 + 1500).toISOString(), uuid: `u${i}`,
      message: { role: 'user', content: [{ tool_use_id: `toolu_${i}`, type: 'tool_result', content: text }] },
    }));
    prompt += 12 + 3 * (1 + (i % 7));
  }
  writeFileSync(join(folder, 'big-session.jsonl'), lines.join('\n') + '\n');
}

describe('the session timeline', { skip: skipReason ? `sample corpus unavailable: ${skipReason}` : false }, () => {
  let browser, page;
  const shots = ensureArtifacts();
  const env = homeEnv(home, [sampleDir, bigDir]);

  before(async () => {
    writeBig(bigDir, BIG_CALLS);
    ({ browser, page } = await openApp(env));
    await indexNow(page, 120000);
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  // sessionWith finds, through the window's own service, the first own
  // transcript that pred accepts.
  async function sessionWith(pred) {
    const rows = await page.evaluate(async () => (await window.go.app.Sessions.List({ harness: '', search: '', order: '', limit: 1000, offset: 0 })).rows);
    return rows.find(pred);
  }

  async function openTimeline(row) {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('session-search').fill(row.sessionId);
    const open = page.locator(`[data-testid=session-row][data-session-id="${row.id}"] [data-testid=session-open]`);
    await open.waitFor({ timeout: 20000 });
    await open.click();
    await page.getByTestId('session-view').waitFor();
    await page.getByTestId('tab-timeline').click();
  }

  test('a sample session: the line, the ceiling, a compaction, result marks and a subagent lane; its figures the CLI’s', async () => {
    const row = await sessionWith((r) => r.harness === 'claude-code' && !r.agentId && r.compactions > 0 && r.modelCalls > 5);
    assert.ok(row, 'the sample has a Claude Code session with a compaction');
    await openTimeline(row);
    const chart = page.getByTestId('timeline-chart');
    await page.locator('[data-testid=timeline-chart][data-render-ms]').waitFor({ timeout: 20000 });
    assert.equal(await chart.getAttribute('data-calls'), String(row.modelCalls));
    // The CLI prints the same timeline.
    const cli = binary('build/bin/spillscope', 'make build/bin/spillscope');
    const r = spawnSync(cli, ['timeline', '--session', String(row.id)], { encoding: 'utf8', env, timeout: 60000 });
    assert.equal(r.status, 0, r.stderr);
    const tl = JSON.parse(r.stdout);
    assert.equal(tl.calls.length, row.modelCalls);
    assert.ok(tl.compactions.length >= 1 && tl.compactions[0].call >= 0, 'the compaction is placed');
    const peak = tl.calls[tl.peak].prompt;
    const summary = await page.getByTestId('timeline-summary').textContent();
    assert.match(summary, new RegExp(`${tl.calls.length} calls · peak ${peak.toLocaleString('en-US')} tokens at call ${tl.peak + 1}`));
    assert.equal(await page.getByTestId('timeline-ceiling').getAttribute('data-source'), tl.contextWindowSource);
    // The subagent's lane, linked to the call that started it.
    const lanes = page.getByTestId('timeline-lane');
    assert.equal(await lanes.count(), tl.subagents.length);
    assert.ok(tl.subagents.length > 0, 'the sample session has a subagent');
    assert.equal(await lanes.first().getAttribute('data-parent-call'), String(tl.subagents[0].parentCall));
    // What filled it, at the peak: results largest first, their shares.
    await page.getByTestId('filled-row').first().waitFor({ timeout: 20000 });
    const tokens = await page.getByTestId('filled-row').evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.tokens)));
    assert.deepEqual(tokens, [...tokens].sort((a, b) => b - a));
    assert.match(await page.getByTestId('filled-summary').textContent(), /dsh-tokens at [\d,]+ tokens would have saved/);
    // The calibration beside the estimate.
    await page.getByTestId('calibration').first().waitFor({ timeout: 20000 });
    await page.setViewportSize({ width: 1440, height: 1500 });
    await page.screenshot({ path: join(shots, 'timeline-en.png') });
    await page.setViewportSize({ width: 1440, height: 900 });

    // Hovering a call shows its figures.
    const box = await page.locator('[data-testid=timeline-chart] .u-over').first().boundingBox();
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
    await waitFor(async () => (await page.getByTestId('hover-prompt').textContent()) === tl.calls[tl.calls.length - 1].prompt.toLocaleString('en-US'),
      'the last call’s figures on hover', 5000);

    // A click on the largest result's mark opens that result.
    const mark = page.getByTestId('timeline-mark').first();
    const id = await mark.getAttribute('data-result-id');
    const x = Number(await mark.getAttribute('data-x'));
    const y = Number(await mark.getAttribute('data-y'));
    await page.mouse.click(box.x + x, box.y + y);
    await page.getByTestId('result-view').waitFor({ timeout: 20000 });
    // The view shows that result: its tool and its token figure.
    const opened = await page.evaluate(async (rid) => (await window.go.app.Sessions.Result({ id: Number(rid), reveal: false })).row, id);
    await waitFor(async () => (await page.locator('[data-testid=result-view] header h1').textContent()) === opened.tool, 'the mark’s result in the view', 10000);
    assert.ok((await page.locator('[data-testid=result-view] header').textContent()).includes(opened.tokens.toLocaleString('en-US')));
    await page.getByTestId('result-back').click();

    // In Chinese: the labels, the numbers and the calibration's sentence.
    await page.getByTestId('lang-zh').click();
    await page.getByTestId('tab-timeline').click().catch(() => {});
    await page.getByText('上下文时间线').first().waitFor({ timeout: 10000 });
    await page.locator('[data-testid=timeline-chart][data-render-ms]').waitFor({ timeout: 20000 });
    assert.match(await page.getByTestId('timeline-summary').textContent(), /次调用 · 峰值/);
    assert.match(await page.getByTestId('timeline').textContent(), /是什么填满了上下文/);
    await page.getByTestId('filled-row').first().waitFor({ timeout: 20000 });
    await page.setViewportSize({ width: 1440, height: 1500 });
    await page.screenshot({ path: join(shots, 'timeline-zh.png') });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('lang-en').click();
    mkdirSync(join(repoDir, 'build', 'screenshots'), { recursive: true });
    for (const l of ['en', 'zh']) copyFileSync(join(shots, `timeline-${l}.png`), join(repoDir, 'build', 'screenshots', `timeline-${l}.png`));
  });

  test(`a ${BIG_CALLS}-call session’s timeline draws every call (its render time to the trace and the log)`, async () => {
    const row = await sessionWith((r) => r.sessionId === 'big-session');
    assert.ok(row && row.modelCalls === BIG_CALLS, `the big session has ${row?.modelCalls} calls`);
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('session-search').fill(row.sessionId);
    const open = page.locator(`[data-testid=session-row][data-session-id="${row.id}"] [data-testid=session-open]`);
    await open.waitFor({ timeout: 20000 });
    await open.click();
    await page.getByTestId('session-view').waitFor();
    // The timeline loads with the session; the tab draws it.
    await waitFor(() => page.evaluate(() => document.querySelector('[data-testid=session-view]') !== null), 'the session view', 5000);
    await browser.startTracing(page, { path: join(shots, 'timeline-trace.json'), categories: ['toplevel', 'devtools.timeline', 'blink.user_timing'] });
    const t0 = await page.evaluate(() => performance.now());
    await page.getByTestId('tab-timeline').click();
    await page.locator(`[data-testid=timeline-chart][data-calls="${BIG_CALLS}"][data-render-ms]`).waitFor({ timeout: 30000 });
    const { render, drawn } = await page.evaluate(() => ({
      render: Number(document.querySelector('[data-testid=timeline-chart]').dataset.renderMs),
      drawn: performance.getEntriesByName('timeline-drawn').at(-1).startTime,
    }));
    const trace = JSON.parse((await browser.stopTracing()).toString());
    // The longest main-thread task in the trace while the chart was drawn.
    const tasks = trace.traceEvents.filter((e) => (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && e.dur).map((e) => e.dur / 1000);
    const longest = Math.max(0, ...tasks);
    console.log(`timeline of ${BIG_CALLS} calls: chart built and drawn in ${render.toFixed(1)} ms; tab click to drawn ${(drawn - t0).toFixed(1)} ms; longest task ${longest.toFixed(1)} ms`);
    // The figure goes to the trace and the README (the target is
    // < 200 ms); a timed assertion would fail on a loaded machine, not on a
    // slow chart. What is asserted is that every call was drawn.
    writeFileSync(join(ensureArtifacts(), 'timeline-render.json'), JSON.stringify({ calls: BIG_CALLS, renderMs: render, clickToDrawnMs: drawn - t0, longestTaskMs: longest }, null, 2));
    assert.ok(Number.isFinite(render) && render > 0, `the chart reported its render time: ${render}`);
    assert.ok((await page.locator('[data-testid=timeline-chart] canvas').count()) > 0, 'the chart drew on a canvas');
    await page.screenshot({ path: join(shots, 'timeline-10k.png') });
  });
});
