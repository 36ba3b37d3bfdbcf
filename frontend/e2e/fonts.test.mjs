// Both languages readable: Chinese (and Japanese, Korean) must render as
// glyphs, not as boxes, in the UI font and in the monospace panes. Without a
// CJK font every Han character draws the same .notdef box, so distinct
// characters give identical bitmaps, equal to that of a code point no font
// has. A control run in a browser that sees no CJK font (fontconfig limited
// to DejaVu) must be caught by the same check, so the check can fail.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { chromiumArgs, ensureArtifacts, noCJKFonts, openApp, stopAll, tempHome } from './harness.mjs';

const home = tempHome();
// Han (Chinese), kana (Japanese), Hangul (Korean).
const samples = ['会', '话', '预', '算', 'ト', 'ク', '결', '과'];
// U+10FFFD, a private-use code point no font draws.
const missing = String.fromCodePoint(0x10fffd);

/** drawn renders each sample in the computed font of an element of class cls; it reports the font stack, how many samples drew distinct bitmaps and which drew the missing-glyph box. */
function drawn(page, cls) {
  return page.evaluate(
    ({ cls, strings }) => {
      const probe = document.createElement('span');
      probe.className = cls;
      document.body.append(probe);
      const family = getComputedStyle(probe).fontFamily;
      probe.remove();
      const c = document.createElement('canvas');
      c.width = c.height = 64;
      const ctx = c.getContext('2d', { willReadFrequently: true });
      const hash = (s) => {
        ctx.clearRect(0, 0, 64, 64);
        ctx.font = `40px ${family}`;
        ctx.textBaseline = 'top';
        ctx.fillText(s, 4, 4);
        const px = ctx.getImageData(0, 0, 64, 64).data;
        let h = 2166136261;
        for (let i = 3; i < px.length; i += 4) h = Math.imul(h ^ px[i], 16777619);
        return h >>> 0;
      };
      const box = hash(strings.missing);
      const hs = strings.samples.map(hash);
      return { family, distinct: new Set(hs).size, boxes: strings.samples.filter((_, i) => hs[i] === box) };
    },
    { cls, strings: { samples, missing } },
  );
}

/** platformFonts asks Chromium which fonts drew the text of the element matching selector. */
async function platformFonts(page, selector) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
  const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
  await cdp.detach();
  return fonts;
}
const usesCJK = (fonts) => fonts.some((f) => /CJK|Source Han|WenQuanYi/i.test(f.familyName) && f.glyphCount > 0);
const classes = [['the UI font', 'ui-probe'], ['the monospace panes', 'mono']];

describe('CJK text renders in real fonts', () => {
  let browser, page, base, bare, barePage;

  before(async () => {
    ({ browser, page, base } = await openApp({
      ...process.env,
      HOME: join(home, 'home'),
      SPILLSCOPE_CONFIG_DIR: join(home, 'config'),
      SPILLSCOPE_DATA_DIR: join(home, 'data'),
      SPILLSCOPE_ROOTS: join(home, 'roots', 'present'),
    }, { viewport: { width: 1280, height: 820 } }));
  });
  after(async () => {
    await browser?.close().catch(() => {});
    await bare?.close().catch(() => {});
    await stopAll();
  });

  for (const [name, cls] of classes) {
    test(`${name}: every CJK character has its own glyph, none is the missing-glyph box`, async () => {
      const d = await drawn(page, cls);
      assert.match(d.family, /Noto Sans (Mono )?CJK SC/, `the font stack names a CJK font: ${d.family}`);
      assert.equal(d.distinct, samples.length, `characters drawn alike (boxes?): ${JSON.stringify(d)}`);
      assert.deepEqual(d.boxes, [], 'characters drawn as the missing-glyph box');
    });
  }

  test('the Chinese screens are drawn with a CJK font (as Chromium reports the fonts it used)', async () => {
    await page.getByTestId('lang-zh').click();
    await page.getByTestId('nav-sessions').filter({ hasText: '会话' }).waitFor({ timeout: 10000 });
    for (const sel of ['[data-testid=nav-sessions]', '[data-testid=nav-largest]']) {
      const fonts = await platformFonts(page, sel);
      assert.ok(usesCJK(fonts), `${sel} is drawn with ${JSON.stringify(fonts)}: no CJK font`);
    }
    await page.screenshot({ path: join(ensureArtifacts(), 'fonts-zh.png') });
    await page.getByTestId('lang-en').click();
  });

  test('control: where no CJK font exists the same checks see boxes', async () => {
    bare = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: chromiumArgs,
      env: { ...process.env, FONTCONFIG_FILE: noCJKFonts() },
    });
    barePage = await bare.newPage({ viewport: { width: 1280, height: 820 } });
    await barePage.goto(base + '/');
    await barePage.getByTestId('nav-sessions').waitFor({ timeout: 30000 });
    for (const [name, cls] of classes) {
      const d = await drawn(barePage, cls);
      assert.ok(d.distinct < samples.length || d.boxes.length > 0, `${name}: boxes not detected without a CJK font: ${JSON.stringify(d)}`);
    }
    await barePage.evaluate(() => {
      document.querySelector('[data-testid=nav-sessions]').textContent = '会话';
    });
    assert.ok(!usesCJK(await platformFonts(barePage, '[data-testid=nav-sessions]')), 'a CJK font reported where none exists');
    await barePage.screenshot({ path: join(ensureArtifacts(), 'fonts-zh-control-no-cjk.png') });
  });
});
