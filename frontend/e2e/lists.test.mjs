// Lists whole, at the scale of a heavy user: an index of 10,000 sessions and
// 100,000 tool results (spillscope sample --sessions --results, indexed by
// the command line). Every list counts what Go counts and reaches its last
// row; the trace records how soon a screen's first rows are painted and the
// frame times while a list scrolls, into test-artifacts/lists-trace.json.
// SPILLSCOPE_E2E_SESSIONS and SPILLSCOPE_E2E_RESULTS shrink the index for a
// quick run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureArtifacts, openApp, repoDir, stopAll, tempHome, waitFor } from './harness.mjs';

const sessions = Number(process.env.SPILLSCOPE_E2E_SESSIONS || 10000);
const results = Number(process.env.SPILLSCOPE_E2E_RESULTS || 100000);
const home = tempHome();
const corpus = join(home, 'roots', 'shape');
const env = {
  ...process.env,
  HOME: join(home, 'home'),
  SPILLSCOPE_CONFIG_DIR: join(home, 'config'),
  SPILLSCOPE_DATA_DIR: join(home, 'data'),
  SPILLSCOPE_ROOTS: corpus,
};

function prepare() {
  const cli = join(repoDir, 'build', 'bin', 'spillscope');
  if (!existsSync(cli)) return `${cli} is missing (build it with: make build/bin/spillscope)`;
  for (const args of [['sample', '--out', corpus, '--sessions', String(sessions), '--results', String(results)], ['index', corpus]]) {
    const r = spawnSync(cli, args, { encoding: 'utf8', timeout: 600000, env, maxBuffer: 64 << 20 });
    if (r.status !== 0) return `"spillscope ${args[0]}" exited ${r.status}: ${(r.stderr || '').trim().slice(0, 300)}`;
  }
  return '';
}
const skipReason = prepare();

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const round = (x) => Math.round(x * 10) / 10;

describe(`lists over ${sessions} sessions and ${results} results`, { skip: skipReason ? `setup failed: ${skipReason}` : false }, () => {
  let browser, page;
  const trace = { sessions, results, firstRowsMs: {}, scroll: {}, jumpToEndMs: {} };

  before(async () => {
    ({ browser, page } = await openApp(env, { viewport: { width: 1280, height: 820 } }));
  });
  after(async () => {
    writeFileSync(join(ensureArtifacts(), 'lists-trace.json'), JSON.stringify(trace, null, 2));
    console.log('lists trace:', JSON.stringify(trace));
    await browser?.close().catch(() => {});
    await stopAll();
  });

  /** open clicks a sidebar item and returns the ms until the first row of rowTestid is painted (the frame after it is in the DOM). */
  const open = (nav, rowTestid) =>
    page.evaluate(
      ({ nav, rowTestid }) =>
        new Promise((resolve, reject) => {
          performance.mark(`open-${nav}`);
          const t0 = performance.now();
          document.querySelector(`[data-testid=${nav}]`).click();
          const tick = () => {
            if (document.querySelector(`[data-testid=${rowTestid}]`)) requestAnimationFrame(() => resolve(performance.now() - t0));
            else if (performance.now() - t0 > 60000) reject(new Error(`no ${rowTestid} painted 60 s after opening ${nav}: ${document.querySelector('main')?.innerText.slice(0, 300)}`));
            else requestAnimationFrame(tick);
          };
          tick();
        }),
      { nav, rowTestid },
    );

  /** scroll moves a table down by step px every frame for n frames, recording the frame intervals and long tasks. */
  const scroll = (tableTestid, step, n) =>
    page.evaluate(
      ({ tableTestid, step, n }) =>
        new Promise((resolve) => {
          const el = document.querySelector(`[data-testid=${tableTestid}]`);
          const frames = [];
          const long = [];
          const obs = new PerformanceObserver((l) => long.push(...l.getEntries().map((e) => e.duration)));
          try {
            obs.observe({ type: 'longtask', buffered: false });
          } catch {
            /* not offered */
          }
          let last = performance.now();
          let i = 0;
          let placeholders = 0;
          const tick = (now) => {
            frames.push(now - last);
            last = now;
            placeholders += el.querySelectorAll('[data-testid=row-loading]').length;
            if (++i >= n) {
              obs.disconnect();
              resolve({ frames: frames.slice(1), long, placeholders, scrollTop: el.scrollTop });
              return;
            }
            el.scrollTop += step;
            requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        }),
      { tableTestid, step, n },
    );

  const record = (name, r) => {
    const dropped = r.frames.filter((f) => f > 1.5 * (1000 / 60)).length;
    trace.scroll[name] = {
      frames: r.frames.length, p50: round(pct(r.frames, 50)), p95: round(pct(r.frames, 95)), max: round(Math.max(...r.frames)),
      dropped, longTasks: r.long.length, placeholderRowFrames: r.placeholders,
    };
  };

  /** jumpToEnd drags the scrollbar to the end and returns the ms until the list's last row is painted. */
  const jumpToEnd = (tableTestid, rowTestid) =>
    page.evaluate(
      ({ tableTestid, rowTestid }) =>
        new Promise((resolve, reject) => {
          const el = document.querySelector(`[data-testid=${tableTestid}]`);
          const last = Number(el.dataset.total) - 1;
          const t0 = performance.now();
          el.scrollTop = el.scrollHeight;
          const tick = () => {
            if (el.querySelector(`[data-testid=${rowTestid}][data-index="${last}"]`)) requestAnimationFrame(() => resolve(performance.now() - t0));
            else if (performance.now() - t0 > 60000) reject(new Error(`row ${last} of ${tableTestid} not painted 60 s after a jump to the end (total now ${el.dataset.total})`));
            else {
              el.scrollTop = el.scrollHeight; // heights measured on the way change the end
              requestAnimationFrame(tick);
            }
          };
          tick();
        }),
      { tableTestid, rowTestid },
    );

  test('the window paints its first screen, the largest results, soon after it loads', async () => {
    await page.getByTestId('largest-row').first().waitFor({ timeout: 30000 });
    // Reload on Largest (the place is remembered) and time the first rows
    // from the navigation's start; in a browser on the dev server the Go
    // bindings arrive after the page script, so that moment is noted too.
    await page.addInitScript(() => {
      const t = setInterval(() => {
        if (window.go?.app) {
          performance.mark('go-bindings');
          clearInterval(t);
        }
      }, 2);
    });
    await page.reload();
    const at = await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const tick = () =>
            document.querySelector('[data-testid=largest-row]')
              ? requestAnimationFrame(() =>
                  resolve({
                    rows: performance.now(),
                    bindings: performance.getEntriesByName('go-bindings')[0]?.startTime ?? NaN,
                    domContentLoaded: performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? NaN,
                  }),
                )
              : performance.now() > 60000
                ? reject(new Error('no largest row 60 s after the reload'))
                : requestAnimationFrame(tick);
          tick();
        }),
    );
    trace.reload = { firstRowsMs: round(at.rows), bindingsMs: round(at.bindings), domContentLoadedMs: round(at.domContentLoaded) };
  });

  test('largest results: counted whole, first rows soon, smooth scrolling, the last row reachable', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('settings-screen').waitFor();
    trace.firstRowsMs.largest = round(await open('nav-largest', 'largest-row'));
    assert.equal(await page.getByTestId('largest-table').getAttribute('data-total'), String(results));
    assert.match(await page.getByTestId('largest-count').textContent(), new RegExp(results.toLocaleString('en-US')));
    record('largest', await scroll('largest-table', 120, 300));
    trace.jumpToEndMs.largest = round(await jumpToEnd('largest-table', 'largest-row'));
    const lastTokens = await page.locator(`[data-testid=largest-row][data-index="${results - 1}"]`).getAttribute('data-tokens');
    const fromGo = await page.evaluate((n) => window.go.app.Sessions.Largest({ offset: n - 1, limit: 1 }), results);
    assert.equal(Number(lastTokens), fromGo.rows[0].tokens, 'the last row is the last of what Go ranks');
    await page.screenshot({ path: join(ensureArtifacts(), 'lists-largest-end.png') });
  });

  test('sessions: counted as the totals count them, smooth scrolling, the last row reachable', async () => {
    await page.getByTestId('nav-settings').click();
    trace.firstRowsMs.sessions = round(await open('nav-sessions', 'session-row'));
    const head = page.getByTestId('session-count');
    const totals = await page.getByTestId('index-totals').textContent();
    assert.equal(await head.getAttribute('data-sessions'), String(sessions));
    assert.match(totals, new RegExp(`^${sessions.toLocaleString('en-US')} sessions`));
    const transcripts = Number(await head.getAttribute('data-transcripts'));
    assert.ok(transcripts > sessions, `subagents are transcripts of their own: ${transcripts}`);
    assert.equal(await page.getByTestId('sessions-table').getAttribute('data-total'), String(transcripts));
    record('sessions', await scroll('sessions-table', 120, 300));
    trace.jumpToEndMs.sessions = round(await jumpToEnd('sessions-table', 'session-row'));
  });

  test('search: every match counted and reachable, not the first 200', async () => {
    await page.getByTestId('nav-search').click();
    await page.getByTestId('result-search-input').fill('the');
    const ms = await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const t0 = performance.now();
          document.querySelector('[data-testid=result-search-go]').click();
          const tick = () =>
            document.querySelector('[data-testid=search-row]')
              ? requestAnimationFrame(() => resolve(performance.now() - t0))
              : performance.now() - t0 > 60000
                ? reject(new Error('no search row 60 s after the search'))
                : requestAnimationFrame(tick);
          tick();
        }),
    );
    trace.firstRowsMs.search = round(ms);
    const total = Number(await page.getByTestId('search-table').getAttribute('data-total'));
    const fromGo = await page.evaluate(() => window.go.app.Sessions.Search({ query: 'the', order: '', offset: 0, limit: 1 }));
    assert.equal(total, fromGo.total);
    assert.ok(total > 200, `more matches than the old cap: ${total}`);
    record('search', await scroll('search-table', 120, 200));
    trace.jumpToEndMs.search = round(await jumpToEnd('search-table', 'search-row'));
  });

  test('links: counted whole, the last row reachable', async () => {
    trace.firstRowsMs.links = round(await open('nav-links', 'link-row'));
    const total = Number(await page.getByTestId('links-table').getAttribute('data-total'));
    assert.equal(Number(await page.getByTestId('links-count').getAttribute('data-total')), total);
    const fromGo = await page.evaluate(() => window.go.app.Links.List({ onlyHidden: false, offset: 0, limit: 1 }));
    assert.equal(total, fromGo.total);
    record('links', await scroll('links-table', 120, 200));
    trace.jumpToEndMs.links = round(await jumpToEnd('links-table', 'link-row'));
  });

  test('keyboard: End and Home move across the whole list', async () => {
    await page.getByTestId('nav-largest').click();
    await page.getByTestId('largest-open').first().focus();
    await page.keyboard.press('End');
    await waitFor(async () => (await page.evaluate(() => document.activeElement?.closest('tr')?.dataset.index)) === String(results - 1), 'focus on the last row', 10000);
    await page.keyboard.press('Home');
    await waitFor(async () => (await page.evaluate(() => document.activeElement?.closest('tr')?.dataset.index)) === '0', 'focus on the first row', 10000);
    await page.keyboard.press('PageDown');
    const at = Number(await page.evaluate(() => document.activeElement?.closest('tr')?.dataset.index));
    assert.ok(at > 5, `Page Down moved a page: ${at}`);
  });
});
