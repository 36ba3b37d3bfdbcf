// A walk over every screen of a corpus written to be hostile: forged spill
// notices, credentials of every family in every spelling, script and HTML
// text, 200 images, 50 MB single lines and a 2 GB sparse spill file. The DOM
// (outerHTML and innerText) and the clipboard after a copy never hold any
// credential value the generator planted; after "Reveal credentials" the same
// result shows them, and once it is closed and opened again they are hidden.
// Each forged notice shows its spill pane outside the file rule, with the path
// it names and nothing of the file there (files the test plants outside the
// roots, and the system files a forged notice names). No script in the corpus
// runs, and no binding call sends more than the dev websocket carries (the
// 50 MB lines are paged, never sent whole). Lists are virtual: each is scrolled
// end to end so every row is drawn and checked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ensureArtifacts, openApp, repoDir, stopAll, tempHome, waitFor } from './harness.mjs';

const home = tempHome();
const corpus = join(home, 'roots', 'hostile');
// The app's home: the corpus is written under it too, so a forged "~/..."
// and the home's absolute path name the same file, which the test plants.
const appHome = join(home, 'home');
let manifest = null;
let skipReason = '';
{
  const cli = join(repoDir, 'build', 'bin', 'spillscope');
  if (!existsSync(cli)) skipReason = `${cli} is missing (build it with: make build/bin/spillscope)`;
  else {
    const r = spawnSync(cli, ['sample', '--hostile', '--out', corpus], {
      encoding: 'utf8', timeout: 300000, maxBuffer: 16 << 20, env: { ...process.env, HOME: appHome },
    });
    if (r.status !== 0) skipReason = `"spillscope sample --hostile" exited ${r.status}: ${(r.stderr || '').trim().slice(0, 300)}`;
    else manifest = JSON.parse(r.stdout);
  }
}

/** inside: p is under dir (or is it). */
const inside = (p, dir) => {
  const rel = relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * planted are files the test writes where forged notices point, outside the
 * roots but inside this run's temporary folder (nothing is written elsewhere
 * on the machine): path -> the lines that must never reach the screen.
 */
const planted = new Map();
if (manifest) {
  for (const p of manifest.forgedPaths) {
    const real = p.startsWith('~/') ? join(appHome, p.slice(2)) : p;
    if (!isAbsolute(real) || !inside(real, home) || inside(real, corpus) || existsSync(real) || planted.has(real)) continue;
    const mark = `PLANTED-OUTSIDE-${planted.size}-${randomBytes(9).toString('hex')}`;
    const lines = [`${mark} first line`, `aws_secret_access_key = ${mark}`, `${mark} last line`];
    mkdirSync(dirname(real), { recursive: true });
    writeFileSync(real, lines.join('\n') + '\n');
    planted.set(real, lines);
  }
}

/** MAX_FRAME is what the dev websocket carries in one message; a larger binding answer is dropped. */
const MAX_FRAME = 600 << 10;

describe('hostile corpus: no credential on screen unasked', { skip: skipReason || false }, () => {
  let browser, page, base, app;
  const shots = ensureArtifacts();
  const shot = (name) => page.screenshot({ path: join(shots, `hostile-${name}.png`) });
  const dialogs = [];
  const frames = { max: 0, over: [] };
  const secrets = manifest?.secrets ?? [];

  before(async () => {
    ({ browser, page, base, app } = await openApp({
      ...process.env,
      HOME: appHome,
      SPILLSCOPE_CONFIG_DIR: join(home, 'config'),
      SPILLSCOPE_DATA_DIR: join(home, 'data'),
      SPILLSCOPE_ROOTS: corpus,
    }));
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('websocket', (ws) =>
      ws.on('framereceived', (f) => {
        const n = typeof f.payload === 'string' ? Buffer.byteLength(f.payload) : f.payload.length;
        frames.max = Math.max(frames.max, n);
        if (n > MAX_FRAME) frames.over.push(n);
      }),
    );
    // The bindings' websocket opened before the listener: open it again under it.
    await page.reload();
    await waitFor(() => page.evaluate(() => !!window.go?.app?.Sessions), 'the Go bindings', 30000);
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  /** domText is everything the page holds as markup and as rendered text, inputs' typed values aside. */
  const domText = () =>
    page.evaluate(() => {
      const clone = document.documentElement.cloneNode(true);
      for (const el of clone.querySelectorAll('textarea')) el.remove();
      return clone.outerHTML + '\n' + document.body.innerText;
    });

  /** assertClean fails naming the first planted secret the page holds. */
  async function assertClean(where) {
    const text = await domText();
    const leaked = secrets.filter((s) => text.includes(s));
    assert.deepEqual(leaked, [], `${where}: the DOM holds ${leaked.length} planted secret(s), e.g. ${leaked[0]}`);
    const ran = await page.evaluate(() => ({
      hostile: window.__hostile ?? null,
      handlers: document.querySelectorAll('[onerror],[onload],iframe,#forged-heading,script:not([src])').length,
    }));
    assert.deepEqual(ran, { hostile: null, handlers: 0 }, `${where}: hostile markup was interpreted`);
    assert.deepEqual(dialogs, [], `${where}: a dialog opened`);
    return text;
  }

  /** clipboardAfterCopy clicks a copy button and reads back what it put on the clipboard. */
  async function clipboardAfterCopy(button) {
    await page.evaluate(() => navigator.clipboard.writeText('-'));
    await button.click();
    await waitFor(async () => (await button.getAttribute('data-state')) === 'copied', 'the copy to finish', 10000);
    return page.evaluate(() => navigator.clipboard.readText());
  }

  const callGo = (fn, ...args) => page.evaluate(fn, ...args);

  let hostileSession = null;
  let rows = [];

  /**
   * eachDrawn scrolls a virtual table from its first row to its last, a part
   * of a screen at a time, and calls fn once the rows drawn there have
   * loaded; fn returning true stops the walk. It returns how many distinct
   * rows were drawn.
   */
  async function eachDrawn(table, fn) {
    const el = page.getByTestId(table);
    await el.waitFor({ timeout: 30000 });
    await el.evaluate((e) => (e.scrollTop = 0));
    const seen = new Set();
    for (;;) {
      await waitFor(async () => (await el.locator('[data-testid=row-loading]').count()) === 0, `the rows of ${table}`, 30000, 100);
      for (const i of await el.locator('tr[data-index]').evaluateAll((trs) => trs.map((tr) => tr.dataset.index))) seen.add(i);
      if (await fn()) return seen.size;
      const moved = await el.evaluate((e) => {
        const top = e.scrollTop;
        e.scrollTop = top + Math.max(40, e.clientHeight * 0.7);
        return e.scrollTop > top;
      });
      if (!moved) return seen.size;
    }
  }

  /** drawnRow scrolls a virtual table until the row sel names is drawn and returns it. */
  async function drawnRow(table, sel) {
    const row = page.getByTestId(table).locator(sel);
    await eachDrawn(table, async () => (await row.count()) > 0);
    assert.equal(await row.count(), 1, `${sel} in ${table}`);
    return row;
  }

  /** allDrawnClean scrolls a whole list and checks the DOM at each step; every row of it must be drawn. */
  async function allDrawnClean(table, where) {
    const total = Number(await page.getByTestId(table).getAttribute('data-total'));
    const drawn = await eachDrawn(table, async () => {
      await assertClean(where);
      return false;
    });
    assert.equal(drawn, total, `${where}: every row of ${table} was drawn`);
  }

  /** toHostileSession shows the hostile session's view, from wherever the window is. */
  async function toHostileSession() {
    if (await page.getByTestId('session-view').isVisible().catch(() => false)) return;
    await page.getByTestId('nav-sessions').click();
    // Sessions reopens on the place it was left: choosing it again goes up to its list.
    if (!(await page.getByTestId('sessions-screen').isVisible().catch(() => false))) await page.getByTestId('nav-sessions').click();
    await page.getByTestId('sessions-screen').waitFor({ timeout: 30000 });
    const row = await drawnRow('sessions-table', `[data-testid=session-row][data-session-id="${hostileSession.id}"]`);
    await row.getByTestId('session-open').click();
    await page.getByTestId('session-view').waitFor({ timeout: 30000 });
  }

  /** openResult opens one result from its session view and waits until its three panes settle. */
  async function openResult(id) {
    await toHostileSession();
    const row = await drawnRow('results-table', `[data-testid=result-row][data-result-id="${id}"]`);
    await row.getByTestId('result-open').click();
    await settle();
  }

  /** closeResult goes back from a result to the list it was opened from. */
  async function closeResult(list = 'session-view') {
    await page.keyboard.press('Escape');
    await page.getByTestId(list).waitFor({ timeout: 30000 });
  }

  async function settle() {
    await page.getByTestId('recorded-blocks').waitFor({ timeout: 60000 });
    await waitFor(async () => (await page.getByTestId('projection').getAttribute('aria-busy').catch(() => null)) === 'false', 'the projection', 60000);
    const spill = page.getByTestId('spill-file');
    if (await spill.count()) {
      // Every verdict of the file rule settles the pane: the forged notices' files are "outside", never read.
      await waitFor(async () => ['ready', 'missing', 'outside', 'unreadable', 'error'].includes(await spill.getAttribute('data-state')), 'the spill pane', 60000);
    }
  }

  test('indexes the hostile corpus and lists it without a secret', async () => {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('index-start').click();
    await page.getByTestId('session-row').first().waitFor({ timeout: 240000 });
    await waitFor(async () => (await page.getByTestId('index-panel').getAttribute('data-running')) === 'false', 'indexing to finish', 240000, 500);
    const list = await callGo(() => window.go.app.Sessions.List({ harness: '', search: '', order: '', limit: 1000, offset: 0 }));
    assert.equal(list.sessions, manifest.sessions);
    assert.equal(list.rows.length, list.total);
    hostileSession = list.rows.find((s) => s.project.endsWith('/hostile'));
    rows = (await callGo((id) => window.go.app.Sessions.Results({ sessionId: id, order: '', onlyNotices: false, offset: 0, limit: 1000 }), hostileSession.id)).rows;
    assert.equal(rows.length, manifest.toolResults - 1, 'every hostile result is listed');
    await waitFor(async () => (await page.getByTestId('session-count').getAttribute('data-sessions')) === String(manifest.sessions), 'the list to count the sessions', 30000);
    await allDrawnClean('sessions-table', 'sessions');
    await shot('sessions');
    await page.getByTestId('nav-largest').click();
    await page.getByTestId('largest-row').first().waitFor({ timeout: 30000 });
    assert.equal(Number(await page.getByTestId('largest-table').getAttribute('data-total')), manifest.toolResults, 'the largest list holds every result');
    await allDrawnClean('largest-table', 'largest');
    await shot('largest-list');
  });

  test('search hits and their snippets hold no secret', async () => {
    await page.getByTestId('nav-search').click();
    // "request done" matches only the 50 MB lines, which are too large to read back for a snippet.
    for (const q of ['fetched', 'Links written', 'request done', 'sparse spill']) {
      await page.getByTestId('result-search-input').fill(q);
      await page.getByTestId('result-search-go').click();
      await page.getByTestId('search-row').first().waitFor({ timeout: 30000 });
      // The snippet cell is drawn with its row; its words arrive after.
      if (q !== 'request done') await waitFor(async () => (await page.getByTestId('search-snippet').first().innerText()).trim() !== '', `a snippet for "${q}"`, 30000);
      await allDrawnClean('search-table', `search "${q}"`);
    }
    const snippet = await page.getByTestId('search-snippet').first().textContent();
    assert.match(snippet, /sparse spill/);
    await shot('search');
  });

  test('every result of the hostile session, in every pane, holds no secret', async () => {
    await toHostileSession();
    await page.getByTestId('result-row').first().waitFor({ timeout: 30000 });
    await allDrawnClean('results-table', 'the hostile session');
    await shot('session');
    let masked = 0;
    for (const r of rows) {
      await openResult(r.id);
      const where = `result ${r.tool}`;
      await assertClean(where);
      const bar = page.getByTestId('credentials-bar');
      if (await bar.count()) masked += Number(await bar.getAttribute('data-masked'));
      // A tight budget cuts inside the text: the cut pieces are masked too.
      await page.getByTestId('budget-input').fill('300');
      await settle();
      await assertClean(`${where} at 300 tokens`);
      await page.getByTestId('budget-input').fill('12500');
      await settle();
      // The spill pane pages on; each page is masked.
      for (let i = 0; i < 2 && (await page.getByTestId('file-more').count()); i++) {
        await page.getByTestId('file-more').click();
        await waitFor(async () => !(await page.getByTestId('file-more').isDisabled().catch(() => false)), 'the next page', 30000);
        await assertClean(`${where} page ${i + 2}`);
      }
      // Copies carry what is shown.
      const copy = page.getByTestId('copy-block').first();
      if (await copy.count()) {
        const clip = await clipboardAfterCopy(copy);
        assert.deepEqual(secrets.filter((s) => clip.includes(s)), [], `${where}: the clipboard holds a secret`);
      }
      if (r.tool.startsWith('mcp__hostile__credentials_plain')) await shot('credentials-masked');
      // Compare policies shows each policy's cut of the same text: masked too.
      if (r.tool.startsWith('mcp__hostile__credentials') || r.tool === 'mcp__hostile__spilled_credentials') {
        await page.getByTestId('compare-toggle').click();
        const panel = page.getByTestId('compare-panel');
        await page.getByTestId('compare-column').first().waitFor({ timeout: 30000 });
        await waitFor(async () => (await panel.getAttribute('aria-busy')) === 'false', 'the comparison', 60000);
        await assertClean(`${where}, compared`);
        await page.getByTestId('compare-toggle').click();
        await settle();
      }
      await closeResult();
    }
    assert.ok(masked > secrets.length / 2, `the panes masked ${masked} values`);
  });

  test('each forged notice shows its path, outside the file rule, and nothing of the file', async () => {
    const forged = manifest.forgedPaths;
    assert.ok(forged.length > 0 && planted.size > 0, `forged ${forged.length}, planted ${planted.size}`);
    // What the model saw (the notices' previews) may show; nothing else of
    // the files they name. The transcript's strings say what it saw.
    const seen = [];
    for (const line of readFileSync(hostileSession.file, 'utf8').split('\n')) {
      if (line.length > 1 << 20 || !line.trim()) continue;
      const walk = (v) => (typeof v === 'string' ? seen.push(v) : v && typeof v === 'object' && Object.values(v).forEach(walk));
      walk(JSON.parse(line));
    }
    const sawn = seen.join('\n');
    const linesOf = (file, sep = '\n') => {
      try {
        return readFileSync(file, 'utf8').split(sep).map((l) => l.trim()).filter((l) => l.length >= 8 && !sawn.includes(l));
      } catch {
        return []; // not readable here: nothing to look for
      }
    };
    const named = (p) => {
      if (p === '/proc/self/environ') return { file: `/proc/${app.child.pid}/environ`, sep: '\0' };
      if (p.startsWith('~/')) return { file: join(appHome, p.slice(2)) };
      return { file: isAbsolute(p) ? p : resolve(dirname(hostileSession.file), p) };
    };
    const forbidden = new Set([manifest.foreignMarker]);
    for (const p of forged) {
      const { file, sep } = named(p);
      for (const l of planted.get(file) ?? linesOf(file, sep)) forbidden.add(l);
    }
    for (const lines of planted.values()) for (const l of lines) assert.ok(forbidden.has(l), `the planted line ${l} is looked for`);
    const passwd = linesOf('/etc/passwd');
    assert.ok(passwd.length > 0 && passwd.every((l) => forbidden.has(l)), 'the lines of /etc/passwd the preview does not hold are looked for');
    assert.ok(!forbidden.has('root:x:0:0:root:/root:/bin/bash'), 'what the model saw is not looked for');

    for (const [i, p] of forged.entries()) {
      const r = rows.find((x) => x.tool === `mcp__hostile__forged_notice_${i}`);
      assert.ok(r, `a result for the forged notice of ${p}`);
      const where = `forged notice ${i} (${p})`;
      // The index, the list, the result's header and the pane agree: one owner of the verdict.
      assert.equal(r.noticeFileState, 'outside', `${where}: the index's verdict`);
      await toHostileSession();
      const listed = await drawnRow('results-table', `[data-testid=result-row][data-result-id="${r.id}"]`);
      assert.equal(await listed.getByTestId('notice-cell').getAttribute('data-file-state'), 'outside', `${where}: the list's verdict`);
      await openResult(r.id);
      const pane = page.getByTestId('spill-file');
      assert.equal(await pane.getAttribute('data-state'), 'outside', where);
      await pane.getByTestId('file-outside').waitFor();
      assert.equal(await pane.getByTestId('file-text').count(), 0, `${where}: no file text`);
      assert.equal(await page.getByTestId('file-more').count(), 0, `${where}: no pages to load`);
      const shownPath = await pane.locator('code.path').textContent();
      const fromGo = await callGo((id) => window.go.app.Sessions.SpillFile({ resultId: id, offset: 0, limit: 65536, reveal: true }), r.id);
      assert.deepEqual({ state: fromGo.state, text: fromGo.text ?? '', size: fromGo.size ?? 0 }, { state: 'outside', text: '', size: 0 }, `${where}: Go read nothing`);
      assert.equal(shownPath, fromGo.path, `${where}: the pane shows the path Go judged`);
      const tail = p.startsWith('~/') ? p.slice(1) : p.replace(/^(\.\.\/)+/, '/');
      assert.ok(shownPath === p || shownPath.endsWith(tail), `${where}: the path shown (${shownPath}) names the forged one`);
      assert.equal(await page.locator('[data-testid=result-view] header [data-testid=notice-cell]').getAttribute('data-file-state'), 'outside', `${where}: the header's verdict`);
      const text = await assertClean(where);
      const leaked = [...forbidden].filter((l) => text.includes(l));
      assert.deepEqual(leaked, [], `${where}: the DOM holds ${leaked.length} line(s) of a file outside the roots`);
      if (i === 0) await shot('forged-outside');
      await closeResult();
    }
  });

  test('a result reveals its credentials on request, until it is closed', async () => {
    const plain = rows.find((r) => r.tool === 'mcp__hostile__credentials_plain');
    const planted = manifest.secretsBySpelling.plain;
    await openResult(plain.id);
    await assertClean('plain credentials, masked');
    const clipMasked = await clipboardAfterCopy(page.getByTestId('copy-block').first());
    assert.match(clipMasked, /\[redacted\]/);
    await page.getByTestId('reveal-credentials').click();
    await page.getByTestId('credentials-revealed').waitFor({ timeout: 30000 });
    await waitFor(async () => (await domText()).includes(planted[0]), 'the values to show', 30000);
    await settle();
    const shown = await domText();
    assert.deepEqual(planted.filter((s) => !shown.includes(s)), [], 'every planted value of the result shows once revealed');
    const recorded = await page.getByTestId('recorded-blocks').innerText();
    const rerun = await page.getByTestId('projection-blocks').innerText();
    assert.ok(planted.every((s) => recorded.includes(s)) && planted.every((s) => rerun.includes(s)), 'both panes reveal');
    const clip = await clipboardAfterCopy(page.getByTestId('copy-block').first());
    assert.ok(planted.every((s) => clip.includes(s)), 'the copy of a revealed block holds the values');
    await shot('credentials-revealed');
    // Closed and opened again: masked, and nothing remembered.
    await closeResult();
    await openResult(plain.id);
    await page.getByTestId('reveal-credentials').waitFor({ timeout: 30000 });
    await assertClean('plain credentials, reopened');
    const settings = await callGo(() => window.go.app.App.GetSettings());
    assert.doesNotMatch(JSON.stringify(settings), /reveal/i, 'reveal is not a setting');

    // The spill file's value across the first page edge shows only revealed.
    const spill = rows.find((r) => r.tool === 'mcp__hostile__spilled_credentials');
    await closeResult();
    await openResult(spill.id);
    await assertClean('spill file, masked');
    await page.getByTestId('reveal-credentials').click();
    await page.getByTestId('credentials-revealed').waitFor({ timeout: 30000 });
    await waitFor(async () => (await page.getByTestId('file-text').innerText()).includes(manifest.pageCrossing), 'the page-crossing value to show', 30000);
    await page.getByTestId('hide-credentials').click();
    await page.getByTestId('reveal-credentials').waitFor({ timeout: 30000 });
    await settle();
    await assertClean('spill file, masked again');
    await closeResult();
  });

  test('the largest results open paged, never whole', async () => {
    await page.getByTestId('nav-largest').click();
    await page.getByTestId('largest-open').first().click();
    await settle();
    const tool = await page.locator('.result h1').textContent();
    assert.match(tool, /huge_line/, 'the 50 MB line is the largest result');
    assert.match(await page.getByTestId('recorded-blocks').innerText(), /showing the first/);
    await assertClean('largest result');
    await shot('largest');
    await closeResult('largest');
  });

  test('the playground masks pasted credentials unless revealed', async () => {
    const pasted = manifest.secretsBySpelling['json-escaped'].slice(0, 3);
    const json = JSON.stringify({
      content: [{ type: 'text', text: pasted.map((s, i) => `fetched https://h${i}.example/p?a=1&token=${s} and https://u:${s}@git.example/r`).join('\n') }],
    });
    await page.getByTestId('nav-playground').click();
    await page.getByTestId('playground-json').fill(json);
    await waitFor(async () => (await page.getByTestId('projection').getAttribute('aria-busy').catch(() => null)) === 'false', 'the playground projection', 30000);
    await page.getByTestId('reveal-credentials').waitFor({ timeout: 30000 });
    await assertClean('playground');
    await page.getByTestId('reveal-credentials').click();
    await page.getByTestId('credentials-revealed').waitFor({ timeout: 30000 });
    await waitFor(async () => (await page.getByTestId('projection-blocks').innerText()).includes(pasted[0]), 'the playground to reveal', 30000);
    await page.getByTestId('nav-links').click();
    await page.getByTestId('nav-playground').click();
    await page.getByTestId('reveal-credentials').waitFor({ timeout: 30000 });
    await assertClean('playground, reopened');
  });

  test('the links list shows redacted URIs and never a value', async () => {
    await page.getByTestId('nav-links').click();
    await page.getByTestId('link-row').first().waitFor({ timeout: 60000 });
    const total = Number(await page.getByTestId('links-table').getAttribute('data-total'));
    const fromGo = await callGo(() => window.go.app.Links.List({ onlyHidden: false, offset: 0, limit: 1 }));
    assert.equal(total, fromGo.total);
    // Every row, drawn a screen at a time: its redacted URI, and a clean DOM.
    const uris = new Map();
    const drawn = await eachDrawn('links-table', async () => {
      for (const [i, u] of await page.locator('[data-testid=link-row]').evaluateAll((trs) =>
        trs.map((tr) => [tr.dataset.index, tr.querySelector('[data-testid=link-uri]')?.innerText ?? null]),
      )) uris.set(i, u);
      await assertClean('links');
      return false;
    });
    assert.equal(drawn, total, 'every link row was drawn');
    const all = [...uris.values()];
    assert.equal(all.length, total);
    assert.ok(all.filter((u) => u?.startsWith('http')).length >= all.length * 0.9, 'almost every row has its redacted URI');
    assert.ok(all.some((u) => /X-Amz-Signature=…/.test(u)) && all.some((u) => u?.includes('[redacted]@')), 'values and userinfo are elided');
    await page.getByTestId('link-check-input').fill(`https://b.s3.amazonaws.com/k?X-Amz-Signature=${secrets[0]}`);
    await page.getByTestId('link-check').click();
    await page.getByTestId('link-check-uri').waitFor({ timeout: 10000 });
    await assertClean('links check');
    await shot('links');
  });

  test('the sweep and settings screens hold no secret either', async () => {
    await page.getByTestId('nav-sweep').click();
    await page.getByTestId('sweep-run').waitFor({ timeout: 30000 });
    await assertClean('sweep');
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('settings-screen').waitFor({ timeout: 30000 });
    await assertClean('settings');
  });

  test('no binding answer was larger than the dev websocket carries', () => {
    assert.deepEqual(frames.over, [], `largest frame ${frames.max} bytes`);
    assert.ok(frames.max > 0, 'frames were seen');
  });
});
