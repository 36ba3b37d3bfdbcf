// A walk over every screen of a corpus written to be hostile: forged spill
// notices, credentials of every family in every spelling, script and HTML
// text, 200 images, 50 MB single lines and a 2 GB sparse spill file. The DOM
// (outerHTML and innerText) and the clipboard after a copy never hold any
// credential value the generator planted; after "Reveal credentials" the same
// result shows them, and once it is closed and opened again they are hidden.
// No script in the corpus runs, and no binding call sends more than the dev
// websocket carries (the 50 MB lines are paged, never sent whole).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureArtifacts, openApp, repoDir, stopAll, tempHome, waitFor } from './harness.mjs';

const home = tempHome();
const corpus = join(home, 'roots', 'hostile');
let manifest = null;
let skipReason = '';
{
  const cli = join(repoDir, 'build', 'bin', 'spillscope');
  if (!existsSync(cli)) skipReason = `${cli} is missing (build it with: make build/bin/spillscope)`;
  else {
    const r = spawnSync(cli, ['sample', '--hostile', '--out', corpus], { encoding: 'utf8', timeout: 300000, maxBuffer: 16 << 20 });
    if (r.status !== 0) skipReason = `"spillscope sample --hostile" exited ${r.status}: ${(r.stderr || '').trim().slice(0, 300)}`;
    else manifest = JSON.parse(r.stdout);
  }
}

/** MAX_FRAME is what the dev websocket carries in one message; a larger binding answer is dropped. */
const MAX_FRAME = 600 << 10;

describe('hostile corpus: no credential on screen unasked', { skip: skipReason || false }, () => {
  let browser, page, base;
  const shots = ensureArtifacts();
  const shot = (name) => page.screenshot({ path: join(shots, `hostile-${name}.png`) });
  const dialogs = [];
  const frames = { max: 0, over: [] };
  const secrets = manifest?.secrets ?? [];

  before(async () => {
    ({ browser, page, base } = await openApp({
      ...process.env,
      HOME: join(home, 'home'),
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

  let hostileSession = 0;
  let rows = [];

  /** openResult opens one result from its session view and waits until its three panes settle. */
  async function openResult(id) {
    if (!(await page.getByTestId('session-view').isVisible().catch(() => false))) {
      await page.getByTestId('nav-sessions').click();
      await page.locator(`[data-testid=session-row][data-session-id="${hostileSession}"] [data-testid=session-open]`).click();
    }
    await page.locator(`[data-testid=result-row][data-result-id="${id}"] [data-testid=result-open]`).click();
    await settle();
  }

  async function settle() {
    await page.getByTestId('recorded-blocks').waitFor({ timeout: 60000 });
    await waitFor(async () => (await page.getByTestId('projection').getAttribute('aria-busy').catch(() => null)) === 'false', 'the projection', 60000);
    const spill = page.getByTestId('spill-file');
    if (await spill.count()) {
      await waitFor(async () => ['ready', 'missing', 'outside', 'unreadable', 'error'].includes(await spill.getAttribute('data-state')), 'the spill pane', 60000);
    }
  }

  test('indexes the hostile corpus and lists it without a secret', async () => {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('index-start').click();
    await page.getByTestId('session-row').first().waitFor({ timeout: 240000 });
    await waitFor(async () => (await page.getByTestId('index-panel').getAttribute('data-running')) === 'false', 'indexing to finish', 240000, 500);
    await page.getByTestId('largest-row').first().waitFor({ timeout: 30000 });
    const sessions = await callGo(() => window.go.app.Sessions.List({ harness: '', search: '', order: '', limit: 0, offset: 0 }));
    assert.equal(sessions.length, manifest.sessions);
    hostileSession = sessions.find((s) => s.project.endsWith('/hostile')).id;
    rows = await callGo((id) => window.go.app.Sessions.Results(id), hostileSession);
    assert.equal(rows.length, manifest.toolResults - 1, 'every hostile result is listed');
    await assertClean('sessions and largest');
    await shot('sessions');
  });

  test('search hits and their snippets hold no secret', async () => {
    // "request done" matches only the 50 MB lines, which are too large to read back for a snippet.
    for (const q of ['fetched', 'Links written', 'request done', 'sparse spill']) {
      await page.getByTestId('result-search-input').fill(q);
      await page.getByTestId('result-search-go').click();
      await page.getByTestId('search-row').first().waitFor({ timeout: 30000 });
      if (q !== 'request done') await page.getByTestId('search-snippet').first().waitFor({ timeout: 30000 });
      await assertClean(`search "${q}"`);
    }
    const snippet = await page.getByTestId('search-snippet').first().textContent();
    assert.match(snippet, /sparse spill/);
    await shot('search');
  });

  test('every result of the hostile session, in every pane, holds no secret', async () => {
    await page.getByTestId('nav-sessions').click();
    await page.locator(`[data-testid=session-row][data-session-id="${hostileSession}"] [data-testid=session-open]`).click();
    await page.getByTestId('result-row').first().waitFor({ timeout: 30000 });
    await assertClean('the hostile session');
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
      await page.keyboard.press('Escape');
      await page.getByTestId('session-view').waitFor();
    }
    assert.ok(masked > secrets.length / 2, `the panes masked ${masked} values`);
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
    await page.keyboard.press('Escape');
    await page.getByTestId('session-view').waitFor();
    await openResult(plain.id);
    await page.getByTestId('reveal-credentials').waitFor({ timeout: 30000 });
    await assertClean('plain credentials, reopened');
    const settings = await callGo(() => window.go.app.App.GetSettings());
    assert.doesNotMatch(JSON.stringify(settings), /reveal/i, 'reveal is not a setting');

    // The spill file's value across the first page edge shows only revealed.
    const spill = rows.find((r) => r.tool === 'mcp__hostile__spilled_credentials');
    await page.keyboard.press('Escape');
    await openResult(spill.id);
    await assertClean('spill file, masked');
    await page.getByTestId('reveal-credentials').click();
    await page.getByTestId('credentials-revealed').waitFor({ timeout: 30000 });
    await waitFor(async () => (await page.getByTestId('file-text').innerText()).includes(manifest.pageCrossing), 'the page-crossing value to show', 30000);
    await page.getByTestId('hide-credentials').click();
    await page.getByTestId('reveal-credentials').waitFor({ timeout: 30000 });
    await settle();
    await assertClean('spill file, masked again');
    await page.keyboard.press('Escape');
  });

  test('the largest results open paged, never whole', async () => {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('largest-open').first().click();
    await settle();
    const tool = await page.locator('.result h1').textContent();
    assert.match(tool, /huge_line/, 'the 50 MB line is the largest result');
    assert.match(await page.getByTestId('recorded-blocks').innerText(), /showing the first/);
    await assertClean('largest result');
    await shot('largest');
    await page.keyboard.press('Escape');
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
    const uris = await page.getByTestId('link-uri').allInnerTexts();
    assert.ok(uris.filter((u) => u.startsWith('http')).length >= uris.length * 0.9, 'almost every row has its redacted URI');
    assert.ok(uris.some((u) => /X-Amz-Signature=…/.test(u)), 'values are elided');
    await assertClean('links');
    // The userinfo links come after the first screenful: the reason filter lists them.
    await page.getByTestId('links-reason').selectOption('userinfo');
    await waitFor(async () => (await page.getByTestId('link-row').evaluateAll((trs) => trs.every((tr) => tr.dataset.flagged === 'true'))) &&
      (await page.getByTestId('link-uri').allInnerTexts()).some((u) => u.includes('[redacted]@')), 'userinfo elided', 20000);
    await assertClean('links by reason');
    await page.getByTestId('links-reason').selectOption('');
    await page.getByTestId('link-check-input').fill(`https://b.s3.amazonaws.com/k?X-Amz-Signature=${secrets[0]}`);
    await page.getByTestId('link-check').click();
    await page.getByTestId('link-check-uri').waitFor({ timeout: 10000 });
    await assertClean('links check');
    await shot('links');
  });

  test('no binding answer was larger than the dev websocket carries', () => {
    assert.deepEqual(frames.over, [], `largest frame ${frames.max} bytes`);
    assert.ok(frames.max > 0, 'frames were seen');
  });
});
