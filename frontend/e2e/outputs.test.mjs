// The links audit and the exports, end to end in the window over a sample
// corpus indexed through it: the audit's filters (class, family, host)
// change the list Go pages and counts; "Open" scrolls the result's panes
// to the link and highlights it on the masked text; an Export button
// writes what its screen lists (every row, with its filters) and the
// audit report. The save dialog cannot be driven here, so the page's
// binding for it answers a temporary path; the buttons, the request they
// build and Go's writing of the file are the real ones.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { chromiumArgs, ensureArtifacts, generateSample, homeEnv, indexNow, openApp, stopAll, tempHome, waitFor } from './harness.mjs';

/** parseCSV reads RFC 4180 (quoted fields, doubled quotes, CRLF) into rows of cells. */
function parseCSV(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

const home = tempHome();
const sampleDir = join(home, 'roots', 'sample');
const skipReason = generateSample(sampleDir);
const outDir = mkdtempSync(join(tmpdir(), 'spillscope-exports-'));

describe('links audit and exports', { skip: skipReason ? `sample corpus unavailable: ${skipReason}` : false }, () => {
  let browser, page;
  const shots = ensureArtifacts();
  const shot = (name) => page.screenshot({ path: join(shots, `outputs-${name}.png`) });

  before(async () => {
    ({ browser, page } = await openApp(homeEnv(home, [sampleDir])));
    await indexNow(page, 90000);
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  /** answerSaveDialog makes the page's save-dialog binding answer path (the real dialog needs a person). */
  const answerSaveDialog = (path) =>
    page.evaluate((p) => {
      window.go.app.Exports.ChoosePath = async () => p;
    }, path);
  const total = async () => Number(await page.getByTestId('links-count').getAttribute('data-total'));
  const rowsAttr = (attr) => page.getByTestId('link-row').evaluateAll((trs, a) => trs.map((tr) => tr.getAttribute(a)), attr);

  test('the links filters change the list Go pages and counts', async () => {
    await page.getByTestId('nav-links').click();
    await page.getByTestId('link-row').first().waitFor({ timeout: 30000 });
    const all = await total();
    const chips = {};
    for (const c of ['plain', 'redacted', 'stubbed', 'marker']) chips[c] = Number(await page.getByTestId(`links-class-${c}`).getAttribute('data-count'));
    assert.equal(chips.plain + chips.redacted + chips.stubbed + chips.marker, all, `class counts ${JSON.stringify(chips)} add up to ${all}`);
    assert.ok(chips.plain > 0 && chips.redacted > 0 && chips.stubbed > 0, JSON.stringify(chips));
    const uris = await page.getByTestId('link-uri').allInnerTexts();
    assert.ok(uris.filter((u) => u.startsWith('http')).length >= uris.length * 0.9, 'the redacted URI column is filled');

    await page.getByTestId('links-class-redacted').click();
    await waitFor(async () => (await total()) === chips.redacted, 'the redacted links alone');
    assert.ok((await rowsAttr('data-class')).every((c) => c === 'redacted'));

    await page.getByTestId('links-family').selectOption('aws');
    await waitFor(async () => {
      const fams = await rowsAttr('data-families');
      return (await total()) < chips.redacted && fams.length > 0 && fams.every((f) => f.split(' ').includes('aws'));
    }, 'the AWS links among them');
    const aws = await total();

    await page.getByTestId('links-class-redacted').click();
    await page.getByTestId('links-family').selectOption('');
    await page.getByTestId('links-host').fill('amazonaws.com');
    await page.getByTestId('links-host').press('Enter');
    await waitFor(async () => {
      const hosts = await rowsAttr('data-host');
      return (await total()) >= aws && (await total()) < all && hosts.length > 0 && hosts.every((h) => h === 'amazonaws.com' || h.endsWith('.amazonaws.com'));
    }, 'the links to amazonaws.com and its subdomains');
    await shot('links-filtered');
    await page.getByTestId('links-clear').click();
    await waitFor(async () => (await total()) === all, 'the whole list back');
  });

  test('an Export button writes every row the links screen lists, with its filters; never into a session folder', async () => {
    await page.getByTestId('links-class-redacted').click();
    await page.getByTestId('links-family').selectOption('aws');
    await waitFor(async () => (await total()) < Number(await page.getByTestId('links-class-redacted').getAttribute('data-count')) + 1, 'the filtered list');
    const want = await total();
    const csvPath = join(outDir, 'links.csv');
    await answerSaveDialog(csvPath);
    await page.getByTestId('links-export-button').click();
    await page.getByTestId('links-export-saved').waitFor({ timeout: 30000 });
    const [header, ...rows] = parseCSV(readFileSync(csvPath, 'utf8'));
    assert.equal(rows.length, want, `the CSV holds the ${want} rows listed`);
    const col = (k) => header.indexOf(k);
    assert.ok(rows.every((r) => r[col('class')] === 'redacted' && r[col('families')].split(' ').includes('aws')), 'every row meets the filters');
    assert.ok(rows.every((r) => r[col('uri')].startsWith('https://') && !/=[^…&#?;]/.test(r[col('uri')].split('?')[1] ?? '')), 'URIs keep no value');

    const jsonPath = join(outDir, 'links.json');
    await answerSaveDialog(jsonPath);
    await page.getByTestId('links-export-format').selectOption('json');
    await page.getByTestId('links-export-button').click();
    await waitFor(async () => existsSync(jsonPath), 'the JSON file', 30000);
    const objs = JSON.parse(readFileSync(jsonPath, 'utf8'));
    assert.deepEqual(
      objs.map((o) => header.map((k) => String(o[k]))),
      rows,
      'the JSON holds the CSV’s rows, cell for cell',
    );

    const inside = join(sampleDir, 'links.csv');
    await answerSaveDialog(inside);
    await page.getByTestId('links-export-button').click();
    await page.locator('[data-testid=failure][data-code=export-path-in-session]').waitFor({ timeout: 30000 });
    assert.ok(!existsSync(inside), 'nothing written into the session folder');
    await page.getByTestId('links-clear').click();
  });

  test('Open scrolls the result panes to the link and highlights it on the masked text', async () => {
    await page.getByTestId('links-class-redacted').click();
    // Not an empty list (every() holds on none) while the filtered page loads.
    await waitFor(async () => {
      const cls = await rowsAttr('data-class');
      return cls.length > 0 && cls.every((c) => c === 'redacted');
    }, 'the redacted links');
    // The link furthest into its text, so the pane has to scroll.
    // Both read at once: the virtual list may redraw its rows between two reads.
    const rows = await page.getByTestId('link-row').evaluateAll((trs) => trs.map((tr) => ({ start: Number(tr.getAttribute('data-start')), host: tr.getAttribute('data-host') })));
    const starts = rows.map((r) => r.start);
    const i = starts.indexOf(Math.max(...starts));
    const host = rows[i].host;
    await page.getByTestId('link-open').nth(i).click();
    await page.getByTestId('result-view').waitFor({ timeout: 20000 });
    const mark = page.getByTestId('recorded-blocks').getByTestId('link-focus');
    await mark.waitFor({ timeout: 20000 });
    const text = await mark.innerText();
    assert.ok(text.startsWith('http') && text.includes(host), `the highlight is the link to ${host}: ${text.slice(0, 120)}`);
    assert.ok(text.includes('[redacted]'), 'its credential value is masked inside the highlight');
    await waitFor(
      () =>
        mark.evaluate((m) => {
          const r = m.getBoundingClientRect();
          let p = m.parentElement;
          while (p && !(p.scrollHeight > p.clientHeight && getComputedStyle(p).overflowY !== 'visible')) p = p.parentElement;
          const box = (p ?? document.documentElement).getBoundingClientRect();
          return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
        }),
      'the highlight scrolled into view',
      10000,
    );
    await shot('link-open');
    await page.getByTestId('result-back').click();
    await page.getByTestId('links-class-redacted').click();
  });

  test('the results, compare and sweep screens export what they list', async () => {
    await page.getByTestId('nav-largest').click();
    await page.getByTestId('largest-row').first().waitFor({ timeout: 20000 });
    const largestPath = join(outDir, 'largest.csv');
    await answerSaveDialog(largestPath);
    await page.getByTestId('largest-export-button').click();
    await page.getByTestId('largest-export-saved').waitFor({ timeout: 30000 });
    const [header, ...rows] = parseCSV(readFileSync(largestPath, 'utf8'));
    const listed = await page.evaluate(() => window.go.app.Sessions.Largest({ offset: 0, limit: 1000 }));
    assert.equal(rows.length, listed.total, 'every result of the list');
    assert.deepEqual(
      rows.map((r) => Number(r[header.indexOf('id')])),
      listed.rows.map((r) => r.id),
      'in the screen’s order',
    );

    await page.getByTestId('largest-open').first().click();
    await page.getByTestId('result-view').waitFor({ timeout: 20000 });
    await page.getByTestId('compare-toggle').click();
    await page.getByTestId('compare-column').first().waitFor({ timeout: 20000 });
    const policies = await page.getByTestId('compare-column').evaluateAll((els) => els.map((e) => e.dataset.policy));
    const comparePath = join(outDir, 'compare.csv');
    await answerSaveDialog(comparePath);
    await page.getByTestId('compare-export-button').click();
    await page.getByTestId('compare-export-saved').waitFor({ timeout: 30000 });
    const [ch, ...crows] = parseCSV(readFileSync(comparePath, 'utf8'));
    assert.deepEqual(
      crows.map((r) => r[ch.indexOf('policy')]),
      policies,
      'one row per column on screen',
    );
    await page.getByTestId('compare-toggle').click();
    await page.getByTestId('result-back').click();

    await page.getByTestId('nav-sweep').click();
    await page.getByTestId('sweep-budgets').fill('1000,4000,16000');
    await page.getByTestId('sweep-run').click();
    await page.getByTestId('sweep-row').first().waitFor({ timeout: 60000 });
    const sweepPath = join(outDir, 'sweep.csv');
    await answerSaveDialog(sweepPath);
    await page.getByTestId('sweep-export-button').click();
    await page.getByTestId('sweep-export-saved').waitFor({ timeout: 60000 });
    const [sh, ...srows] = parseCSV(readFileSync(sweepPath, 'utf8'));
    const onScreen = await page.getByTestId('sweep-row').evaluateAll((trs) => trs.map((tr) => tr.dataset.budget));
    assert.deepEqual(
      srows.map((r) => r[sh.indexOf('budget')]),
      onScreen,
      'the budgets on screen',
    );
  });

  test('the audit report: written from the window, opens offline, runs and fetches nothing, names the largest results', async () => {
    await page.getByTestId('nav-largest').click();
    await page.getByTestId('largest-row').first().waitFor({ timeout: 20000 });
    for (const lang of ['en', 'zh']) {
      if (lang === 'zh') await page.getByTestId('lang-zh').click();
      const path = join(outDir, `report-${lang}.html`);
      await answerSaveDialog(path);
      await page.getByTestId('index-report-format').selectOption('html');
      await page.getByTestId('index-report-button').click();
      await page.getByTestId('index-report-saved').waitFor({ timeout: 60000 });
      const html = readFileSync(path, 'utf8');
      assert.ok(!/<script/i.test(html), 'no script');
      assert.ok(!/<[^>]+\son\w+\s*=/i.test(html), 'no event handler');
      assert.ok(!/\s(src|href)\s*=/i.test(html) && !/url\(/i.test(html), 'no URL to load');
      assert.ok(html.includes(`lang="${lang}"`), `in ${lang}`);

      // Opened from disk in a browser with no network, it asks for nothing.
      const viewer = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
      const p = await viewer.newPage({ viewport: { width: 1100, height: 1300 } });
      const requests = [];
      p.on('request', (r) => requests.push(r.url()));
      await p.goto('file://' + path);
      const text = await p.locator('body').innerText();
      const largest = await page.evaluate(() => window.go.app.Sessions.Largest({ offset: 0, limit: 25 }));
      for (const r of largest.rows) assert.ok(text.includes(r.tool), `the report names ${r.tool}`);
      assert.deepEqual(requests, ['file://' + path], 'no request but the file itself');
      await p.screenshot({ path: join(shots, `outputs-report-${lang}.png`) });
      await viewer.close();
    }
    await page.getByTestId('lang-en').click();
  });
});
