// dsh end to end: the sample's dsh sessions (both eras, zstd and raw) are
// indexed through the window; a dsh result replays as recorded and the
// result view says "reproduced"; the pruned result says what replaced it;
// a notice into another session's spill folder is marked, not followed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ensureArtifacts, generateSample, homeEnv, indexNow, openApp, stopAll, tempHome, waitFor } from './harness.mjs';

const home = tempHome();
const sampleDir = join(home, 'roots', 'sample');
const skipReason = generateSample(sampleDir);

describe('dsh sessions in the window', { skip: skipReason ? `sample corpus unavailable: ${skipReason}` : false }, () => {
  let browser, page;
  const shots = ensureArtifacts();

  before(async () => {
    ({ browser, page } = await openApp(homeEnv(home, [sampleDir])));
    await indexNow(page, 60000);
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stopAll();
  });

  // openResult opens, from the sessions list filtered to dsh, the first
  // result of a dsh session that matches sel inside its row.
  async function openResult(sel) {
    await page.getByTestId('nav-sessions').click();
    await page.getByTestId('harness-filter').selectOption('dsh');
    await waitFor(async () => {
      const hs = await page.getByTestId('session-row').evaluateAll((trs) => trs.map((tr) => tr.dataset.harness));
      return hs.length === 3 && hs.every((h) => h === 'dsh');
    }, 'the three dsh transcripts', 10000);
    const n = await page.getByTestId('session-row').count();
    for (let i = 0; i < n; i++) {
      await page.getByTestId('session-open').nth(i).click();
      await page.getByTestId('result-row').first().waitFor({ timeout: 20000 });
      const row = page.getByTestId('result-row').filter({ has: page.locator(sel) });
      if ((await row.count()) > 0) {
        await row.first().getByTestId('result-open').click();
        await page.getByTestId('result-view').waitFor({ timeout: 20000 });
        return;
      }
      await page.getByTestId('nav-sessions').click();
      await page.getByTestId('harness-filter').selectOption('dsh');
      await page.getByTestId('session-row').nth(i).waitFor();
    }
    throw new Error(`no dsh result matches ${sel}`);
  }

  test('a dsh result replays as recorded and reproduces byte for byte', async () => {
    await openResult('[data-testid=notice-cell][data-file-state=exists]');
    await page.getByTestId('replay-button').click();
    const status = page.getByTestId('replay-status');
    await status.waitFor({ timeout: 30000 });
    assert.equal(await status.getAttribute('data-status'), 'reproduced', await page.getByTestId('replay').textContent());
    assert.match(await status.textContent(), /Reproduced byte for byte/);
    assert.match(await page.getByTestId('replay-budget').textContent(), /dsh-(bytes|tokens) at .*dsh-meter · deepseek-v4/);
    assert.equal(await page.getByTestId('replay-difference').count(), 0);
    await page.screenshot({ path: join(shots, 'dsh-replay.png') });
  });

  test('the pruned result says what replaced it and what the model saw last', async () => {
    await page.getByTestId('nav-sessions').click();
    const pruned = await page.evaluate(async () => {
      const out = [];
      for (const s of (await window.go.app.Sessions.List({ harness: 'dsh', search: '', order: '', limit: 1000, offset: 0 })).rows) {
        for (const r of (await window.go.app.Sessions.Results({ sessionId: s.id, order: '', onlyNotices: false, offset: 0, limit: 1000 })).rows) {
          const d = await window.go.app.Sessions.Result({ id: r.id, reveal: false });
          if (d.replaced) out.push({ session: s.id, id: r.id, kind: d.replaced.kind });
        }
      }
      return out;
    });
    assert.equal(pruned.length, 1, JSON.stringify(pruned));
    await page.getByTestId('harness-filter').selectOption('dsh');
    await page.locator(`[data-testid=session-row][data-session-id="${pruned[0].session}"] [data-testid=session-open]`).click();
    await page.locator(`[data-testid=result-row][data-result-id="${pruned[0].id}"] [data-testid=result-open]`).click();
    const box = page.getByTestId('replaced');
    await box.waitFor({ timeout: 20000 });
    assert.equal(await box.getAttribute('data-kind'), 'prune');
    assert.match(await box.textContent(), /until the compaction pruner replaced it at seq \d+/);
    await box.locator('summary').click();
    assert.match(await page.getByTestId('last-seen-blocks').textContent(), /\[\.\.\. tool result middle pruned \.\.\.\]/);
    // The record itself still replays: the pruner cut the logged copy, not the decision.
    await page.getByTestId('replay-button').click();
    await page.getByTestId('replay-status').waitFor({ timeout: 30000 });
    assert.equal(await page.getByTestId('replay-status').getAttribute('data-status'), 'reproduced');
  });

  test('a notice into another session\'s spill folder is marked, not followed', async () => {
    await openResult('[data-testid=notice-cell][data-file-state=other-session]');
    await page.getByTestId('spill-other-session').first().waitFor({ timeout: 20000 });
    const pane = page.getByTestId('file-outside');
    await pane.waitFor({ timeout: 20000 });
    assert.equal(await pane.getAttribute('data-other-session'), 'true');
    assert.match(await pane.textContent(), /Another session’s spill folder: not followed/);
    await page.getByTestId('replay-button').click();
    const status = page.getByTestId('replay-status');
    await status.waitFor({ timeout: 30000 });
    assert.equal(await status.getAttribute('data-status'), 'unavailable');
    assert.match(await status.textContent(), /another session’s spill folder/);
  });
});
