// The result view's interaction trace, in a real browser against the live Go
// bindings: on the corpus's largest result (the sample's 1 MB MCP log fetch)
// it opens the result, drags the budget slider, types budgets and switches
// the route, estimator and policy, and times each from the input event to the
// frame that paints the new projection. The figures (p50/p95) go to
// test-artifacts/interaction.json; the test asserts only behaviour: what is
// painted is what Go decides for the last input, a drag never sends a
// superseded budget, and the recorded pane is not rebuilt by a change.
//
// The full trace is opt-in (SPILLSCOPE_E2E_TRACE=1: more opens, budgets and
// changes for its p50/p95); by default each behaviour is checked on fewer
// inputs. SPILLSCOPE_TRACE_ROOT names another corpus (e.g. a `spillscope sample
// --bench-bytes 1GB` folder, which holds the same result), and
// SPILLSCOPE_TRACE_DATA a data folder where it is already indexed.
// SPILLSCOPE_TRACE_PIN=0/1 pins the app to CPU 0 and the browser to CPU 1.
//
// Every sample is also split (interaction.json's samples, and the slowest of
// each kind printed): until the re-run is asked, the call as the page sees
// it and what it waited behind, Go's own time with its steps, collections
// and allocation (the app's SPILLSCOPE_TRACE_CALLS lines), the answer's
// apply to the DOM, the frame and the paint, and the long tasks between.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureArtifacts, generateSample, homeEnv, openApp, repoDir, stopAll, tempHome, waitFor } from './harness.mjs';

const cli = join(repoDir, 'build', 'bin', 'spillscope');
const home = tempHome();
const root = process.env.SPILLSCOPE_TRACE_ROOT || join(home, 'roots', 'sample');
const dataDir = process.env.SPILLSCOPE_TRACE_DATA || join(home, 'data');
const trace = process.env.SPILLSCOPE_E2E_TRACE === '1';

function prepare() {
  if (!process.env.SPILLSCOPE_TRACE_ROOT) {
    const why = generateSample(root);
    if (why) return why;
  } else if (!existsSync(cli)) return `${cli} is missing (build it with: make build/bin/spillscope)`;
  if (!process.env.SPILLSCOPE_TRACE_DATA) {
    const r = spawnSync(cli, ['index', root], { encoding: 'utf8', timeout: 600000, env: { ...process.env, SPILLSCOPE_DATA_DIR: dataDir } });
    if (r.status !== 0) return `"spillscope index" exited ${r.status}: ${(r.stderr || '').trim().slice(0, 300)}`;
  }
  return '';
}

const skipReason = prepare();

/** quantile of sorted xs (nearest rank). */
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] : NaN;
}
const summary = (xs) => ({ n: xs.length, p50: +quantile(xs, 0.5).toFixed(1), p95: +quantile(xs, 0.95).toFixed(1), max: +Math.max(...xs).toFixed(1) });

/**
 * The in-page probe: paintAfter resolves with the time of the first frame
 * painted after pred() holds (a MutationObserver sees the change, then one
 * animation frame and a task: the task runs after that frame's paint).
 * Retain is wrapped so every call's request and timing are recorded.
 */
function installProbe() {
  if (window.__trace) return;
  const calls = [];
  // Every binding call in the order made (name, start, end), and the calls in
  // flight, for what a slow sample waited behind (the dev server answers one
  // at a time).
  const all = [];
  const open = new Set();
  let inFlight = 0;
  const svc = window.go.app.Retention;
  const orig = svc.Retain;
  svc.Retain = (req) => {
    const slider = document.querySelector('[data-testid=budget-input]');
    const c = { budget: req.budget ?? null, shown: slider ? slider.value : null, start: performance.now(), end: 0, overlap: inFlight, behind: [...open].map((o) => o.name) };
    const rec = { name: 'Retention.Retain', start: c.start, end: 0 };
    inFlight++;
    calls.push(c);
    all.push(rec);
    open.add(rec);
    return orig(req).finally(() => {
      inFlight--;
      c.end = rec.end = performance.now();
      open.delete(rec);
    });
  };
  // Every other binding call, counted by name.
  const bindings = {};
  for (const [svcName, svcObj] of Object.entries(window.go.app)) {
    for (const [name, f] of Object.entries(svcObj)) {
      if (svcObj === svc && name === 'Retain') continue;
      svcObj[name] = (...args) => {
        const k = `${svcName}.${name}`;
        const b = (bindings[k] ??= { n: 0, ms: 0 });
        const t = performance.now();
        const rec = { name: k, start: t, end: 0 };
        all.push(rec);
        open.add(rec);
        return f(...args).finally(() => {
          b.n++;
          rec.end = performance.now();
          b.ms += rec.end - t;
          open.delete(rec);
        });
      };
    }
  }
  // The page's long tasks (script, style, layout over 50 ms).
  const longTasks = [];
  try {
    new PerformanceObserver((l) => l.getEntries().forEach((e) => longTasks.push({ start: e.startTime, ms: e.duration }))).observe({ type: 'longtask' });
  } catch {
    /* not offered */
  }
  const paintAfter = (pred, ms = 20000) =>
    new Promise((res, rej) => {
      let done = false;
      const finish = (ok) => {
        if (done) return;
        done = true;
        obs.disconnect();
        clearTimeout(timer);
        if (!ok) rej(new Error('timed out waiting for the view'));
        else {
          const dom = performance.now();
          requestAnimationFrame(() => {
            const frame = performance.now();
            setTimeout(() => {
              const t = performance.now();
              window.__trace.last = { dom, frame, paint: t };
              res(t);
            }, 0);
          });
        }
      };
      const obs = new MutationObserver(() => pred() && finish(true));
      obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      const timer = setTimeout(() => finish(false), ms);
      if (pred()) finish(true);
    });
  const projection = () => document.querySelector('[data-testid=projection]');
  /** shows: the projection on screen was decided for want (budget, policy, route, estimator) and is not waiting. */
  const shows = (want) => {
    const p = projection();
    if (!p || p.getAttribute('aria-busy') === 'true') return false;
    return Object.entries(want).every(([k, v]) => p.dataset[k] === String(v));
  };
  /**
   * split is one sample's breakdown, from its input at t0 to its paint: until
   * the re-run is asked (toCall), the call as the page sees it (binding; what
   * it waited behind), from the answer to the DOM showing it (apply), and the
   * frame's style, layout and paint (paint); with the long tasks and other
   * binding calls in that time.
   */
  const split = (t0) => {
    const { dom, frame, paint } = window.__trace.last;
    const i = calls.findIndex((c) => c.start >= t0);
    const c = i >= 0 ? calls[i] : null;
    const r = (x) => +x.toFixed(1);
    return {
      total: r(paint - t0),
      call: i,
      toCall: c ? r(c.start - t0) : null,
      binding: c ? r(c.end - c.start) : null,
      behind: c ? c.behind : [],
      apply: r(dom - (c ? c.end : t0)),
      frame: r(frame - dom),
      paint: r(paint - frame),
      others: all.filter((o) => o.name !== 'Retention.Retain' && o.end > t0 && o.start < paint).map((o) => `${o.name} ${r(o.start - t0)}+${r(o.end - o.start)}`),
      longTasks: longTasks.filter((l) => l.start + l.ms > t0 && l.start < paint).map((l) => `${r(l.start - t0)}+${r(l.ms)}`),
    };
  };
  window.__trace = { calls, all, bindings, longTasks, paintAfter, projection, shows, split };
}

/** tree is pid and every process under it. */
function tree(pid) {
  const out = [pid];
  const r = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  for (const c of (r.stdout || '').split('\n').map((x) => Number(x.trim())).filter(Boolean)) out.push(...tree(c));
  return out;
}

/**
 * pin (SPILLSCOPE_TRACE_PIN=APP/BROWSER, CPU lists such as 0/1) puts the app
 * with its threads and the browser (this process's chromium children) with
 * its processes on their own CPUs, so the figures say what each does without
 * the other in its way.
 */
function pin(appPid, spec) {
  const [appCPUs, browserCPUs] = spec.split('/');
  const kids = spawnSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  const browsers = (kids.stdout || '')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([, comm]) => comm && comm.includes('chrom'))
    .map(([pid]) => Number(pid));
  if (!browsers.length) throw new Error('no chromium process to pin');
  const jobs = [...tree(appPid).map((p) => [p, appCPUs]), ...browsers.flatMap((b) => tree(b).map((p) => [p, browserCPUs]))];
  for (const [p, cpus] of jobs) {
    const r = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(p)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`taskset ${cpus} ${p}: ${(r.stderr || '').trim()}`);
  }
}

describe('result view interaction trace', { skip: skipReason ? `corpus unavailable: ${skipReason}` : false }, () => {
  let browser, page, largest, app;
  const figures = {};
  // Each sample's breakdown, by interaction (test-artifacts/interaction.json).
  const samples = {};
  // The Go side of each Retain call, in call order, from the app's trace lines.
  let goBefore = 0;
  const goCalls = () =>
    [...app.log().matchAll(/spillscope-trace call=Retain go_ms=([\d.]+) gcs=(\d+) alloc_kb=(\d+) ?(.*)/g)].map((m) => ({ go: Number(m[1]), gcs: Number(m[2]), allocKB: Number(m[3]), goSteps: m[4] }));
  /** record keeps a sample's breakdown, with the Go time of its re-run. */
  const record = (kind, split) => {
    (samples[kind] ??= []).push(split);
    return split.total;
  };
  const withGo = () => {
    const go = goCalls().slice(goBefore);
    for (const xs of Object.values(samples)) for (const x of xs) if (x.call >= 0 && go[x.call]) Object.assign(x, go[x.call]);
  };

  before(async () => {
    ({ app, browser, page } = await openApp({ ...homeEnv(home, [root]), SPILLSCOPE_DATA_DIR: dataDir, SPILLSCOPE_TRACE_CALLS: '1' }));
    if (process.env.SPILLSCOPE_TRACE_PIN) pin(app.child.pid, process.env.SPILLSCOPE_TRACE_PIN);
    goBefore = goCalls().length;
    await page.evaluate(installProbe);
    const top = await page.evaluate(() => window.go.app.Sessions.Largest({ offset: 0, limit: 2 }));
    largest = top.rows;
  });

  after(async () => {
    figures.bindings = await page?.evaluate(() => window.__trace.bindings).catch(() => null);
    if (app) withGo();
    const out = join(ensureArtifacts(), 'interaction.json');
    if (app) writeFileSync(join(ensureArtifacts(), 'interaction-app.log'), app.log());
    writeFileSync(out, JSON.stringify({ corpus: root, result: largest?.[0], figures, samples }, null, 2) + '\n');
    for (const [k, v] of Object.entries(figures)) console.log(`interaction ${k}: ${JSON.stringify(v)}`);
    // The slowest samples of each interaction, split (the tail's causes).
    for (const [k, xs] of Object.entries(samples)) {
      for (const x of [...xs].sort((a, b) => b.total - a.total).slice(0, trace ? 3 : 1)) console.log(`interaction slow ${k}: ${JSON.stringify(x)}`);
    }
    await browser?.close().catch(() => {});
    await stopAll();
  });

  /** open clicks the nth largest result's row and times it to the frame that paints its blocks and projection. */
  const open = (nth) =>
    page.evaluate(async (nth) => {
      const { paintAfter, shows } = window.__trace;
      await paintAfter(() => document.querySelectorAll('[data-testid=largest-open]').length > nth);
      const t0 = performance.now();
      document.querySelectorAll('[data-testid=largest-open]')[nth].click();
      await paintAfter(
        () => !!document.querySelector('[data-testid=recorded-blocks] [data-testid=block]') && shows({}) && !!document.querySelector('[data-testid=projection-blocks] [data-testid=block]'),
      );
      return window.__trace.split(t0);
    }, nth);
  const back = () =>
    page.evaluate(async () => {
      document.querySelector('[data-testid=result-back]').click();
      await window.__trace.paintAfter(() => !!document.querySelector('[data-testid=largest-open]'));
    });

  test('the largest result is the 1 MB one, and opening it paints its panes', async () => {
    assert.ok(largest?.length === 2, 'the corpus has results');
    assert.ok(largest[0].textBytes >= 1_000_000, `the largest result holds ${largest[0].textBytes} bytes`);
    await page.getByTestId('nav-largest').click();
    const cold = record('openFirst', await open(0));
    const warm = [];
    for (let i = 0; i < (trace ? 6 : 1); i++) {
      await back();
      await open(1);
      await back();
      warm.push(record('open', await open(0)));
    }
    figures.openFirst = { ms: +cold.toFixed(1) };
    figures.open = summary(warm);
    assert.equal(await page.getByTestId('result-view').count(), 1);
  });

  test('the panes read the 1 MB result by page, and the pages read are its text', async () => {
    const pane = (testid) =>
      page.evaluate((testid) => {
        // The first paged text, and what all of them span.
        const pres = [...document.querySelectorAll(`[data-testid=${testid}] pre[data-end]`)];
        const pre = pres[0];
        const spans = pres.reduce((n, p) => n + Number(p.dataset.end) - Number(p.dataset.start), 0);
        return pre ? { start: Number(pre.dataset.start), end: Number(pre.dataset.end), read: Number(pre.dataset.read), spans } : null;
      }, testid);
    const recorded = await pane('recorded-blocks');
    assert.ok(recorded, 'the recorded block is paged');
    assert.ok(recorded.spans >= 1_000_000, `the recorded views span ${recorded.spans} bytes`);
    assert.ok(recorded.read < recorded.end, `the recorded pane holds ${recorded.read} of ${recorded.end} bytes before it scrolls`);
    assert.ok(await pane('projection-blocks'), 'the re-run pane pages its kept text too');
    // Scrolling to the end of what is read reads the next pages.
    let read = recorded.read;
    for (let i = 0; i < 4; i++) {
      await page.evaluate(() => {
        const pre = document.querySelector('[data-testid=recorded-blocks] pre[data-end]');
        for (let e = pre; e; e = e.parentElement) {
          const o = getComputedStyle(e).overflowY;
          if (o === 'auto' || o === 'scroll') {
            e.scrollTop = e.scrollHeight;
            break;
          }
        }
      });
      await waitFor(async () => (await pane('recorded-blocks')).read > read, 'the next page to be read', 10000, 20);
      read = (await pane('recorded-blocks')).read;
    }
    // What the pages show is the result's text as Go masks it whole.
    const same = await page.evaluate(async (id) => {
      const runs = [...document.querySelector('[data-testid=recorded-blocks] pre[data-end]').querySelectorAll('.run')].map((r) => r.textContent).join('');
      const whole = await window.go.app.Sessions.Result({ id, reveal: false, paged: false });
      // Spelled as the panes spell control characters (splitControls).
      // eslint-disable-next-line no-control-regex
      const text = whole.blocks.find((b) => b.kind === 'text').text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));
      const n = Math.min(runs.length, text.length);
      let d = 0;
      while (d < n && runs[d] === text[d]) d++;
      return { n, equal: d === n, at: d, got: runs.slice(d, d + 40), want: text.slice(d, d + 40) };
    }, largest[0].id);
    assert.ok(same.n > 4 * 8192, `the pane shows ${same.n} characters`);
    assert.ok(same.equal, `the paged text equals the text Go sends whole: ${JSON.stringify(same)}`);
  });

  test('a budget drag paints each newer budget and never sends a superseded one', async () => {
    const r = await page.evaluate(async () => {
      const { calls, paintAfter, projection } = window.__trace;
      const slider = document.querySelector('[data-testid=budget-slider]');
      const input = document.querySelector('[data-testid=budget-input]');
      const recorded = [...document.querySelectorAll('[data-testid=recorded-blocks] [data-testid=block]')];
      recorded.forEach((el) => (el.__kept = true));
      const before = calls.length;
      const events = [];
      const paints = [];
      // Each painted projection, by the budget it shows (one answered while a
      // newer request is out shows too, marked as waiting).
      const seen = new MutationObserver(() => {
        const p = projection();
        if (!p) return;
        const b = Number(p.dataset.budget);
        if (paints.length && paints[paints.length - 1].budget === b) return;
        const at = { budget: b, t: 0, dom: performance.now() };
        paints.push(at);
        requestAnimationFrame(() => setTimeout(() => (at.t = performance.now()), 0));
      });
      seen.observe(document.getElementById('pane-rerun').parentElement, { subtree: true, childList: true, attributes: true });
      const strokes = [];
      for (let pos = 500; pos <= 1000; pos += 10) strokes.push(pos);
      for (let pos = 990; pos >= 560; pos -= 10) strokes.push(pos);
      for (let pos = 570; pos <= 900; pos += 10) strokes.push(pos);
      for (const pos of strokes) {
        slider.value = String(pos);
        const t = performance.now();
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((r) => setTimeout(r, 16));
        events.push({ t, budget: Number(input.value) });
      }
      const last = events[events.length - 1].budget;
      await paintAfter(() => window.__trace.shows({ budget: last }));
      await new Promise((r) => setTimeout(r, 100));
      seen.disconnect();
      // Latency of an input: until a frame paints its budget or one set after it.
      const splits = [];
      const rd = (x) => +x.toFixed(1);
      const latency = events.map((e, i) => {
        const later = new Set(events.slice(i).map((x) => x.budget));
        const p = paints.find((p) => p.t >= e.t && later.has(p.budget) && events.findLastIndex((x) => x.budget === p.budget) >= i);
        if (!p) return NaN;
        // The call that answered it, and the one in flight when it came (which it waited for).
        const ci = calls.findLastIndex((c) => c.budget === p.budget && c.end && c.end <= p.dom);
        const c = calls[ci];
        const busy = calls.find((x) => x.start < e.t && x.end > e.t);
        splits.push({
          total: rd(p.t - e.t),
          call: ci,
          waitInFlight: busy ? rd(busy.end - e.t) : 0,
          toCall: c ? rd(c.start - e.t) : null,
          binding: c ? rd(c.end - c.start) : null,
          behind: c ? c.behind : [],
          apply: c ? rd(p.dom - c.end) : null,
          paint: rd(p.t - p.dom),
          longTasks: window.__trace.longTasks.filter((l) => l.start + l.ms > e.t && l.start < p.t).map((l) => `${rd(l.start - e.t)}+${rd(l.ms)}`),
        });
        return p.t - e.t;
      });
      const mine = calls.slice(before);
      return {
        latency,
        splits,
        settle: paints[paints.length - 1].t - events[events.length - 1].t,
        last,
        shown: Number(projection().dataset.budget),
        stale: mine.filter((c) => String(c.budget) !== c.shown).map((c) => [c.budget, c.shown]),
        overlap: Math.max(0, ...mine.map((c) => c.overlap)),
        calls: mine.length,
        inputs: events.length,
        kept: recorded.every((el) => el.isConnected && el.__kept) && document.querySelectorAll('[data-testid=recorded-blocks] [data-testid=block]').length === recorded.length,
      };
    });
    for (const x of r.splits) record('drag', x);
    figures.drag = { ...summary(r.latency.filter((x) => !Number.isNaN(x))), settle: +r.settle.toFixed(1), calls: r.calls, inputs: r.inputs };
    assert.equal(r.shown, r.last, 'the projection on screen is the last budget dragged to');
    assert.deepEqual(r.stale, [], 'every request was for the budget on screen when it was sent');
    assert.equal(r.overlap, 0, 'one request at a time: a newer budget waits for the answer in flight instead of queuing');
    assert.ok(r.latency.every((x) => !Number.isNaN(x)), 'every input was followed by a paint of it or a newer budget');
    assert.ok(r.kept, 'the recorded pane was not rebuilt by a budget change');
  });

  /** change applies one control's value and times it to the frame painting a projection decided for want. */
  const change = (testid, value, want) =>
    page.evaluate(
      async ({ testid, value, want }) => {
        const { paintAfter, shows } = window.__trace;
        const el = document.querySelector(`[data-testid=${testid}]`);
        const t0 = performance.now();
        el.value = value;
        el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
        await paintAfter(() => shows(want));
        return window.__trace.split(t0);
      },
      { testid, value, want },
    );

  test('typed budgets paint the budget typed', async () => {
    const xs = [];
    const from = await page.evaluate(() => window.__trace.calls.length);
    const budgets = [1000, 5000, 12500, 50000, 200000, 2500, 100000, 20000, 7500, 150000];
    for (const b of trace ? budgets : budgets.slice(0, 3)) xs.push(record('typed', await change('budget-input', String(b), { budget: b })));
    figures.typed = summary(xs);
    // The binding alone, as the page sees it: from the call to its answer, parsed.
    figures.typedBinding = summary(await page.evaluate((from) => window.__trace.calls.slice(from).map((c) => c.end - c.start), from));
  });

  test('route, estimator and policy changes paint a projection decided with them', async () => {
    const calls = () => page.evaluate(() => window.__trace.calls.length);
    const binding = (from) => page.evaluate((from) => window.__trace.calls.slice(from).map((c) => c.end - c.start), from);
    const routes = (await page.evaluate(() => window.go.app.Retention.Routes())).map((r) => r.name);
    const pick = ['anthropic', 'openai-tile', 'gemini'].filter((r) => routes.includes(r));
    assert.ok(pick.length >= 2, `routes ${routes}`);
    const routeEst = Object.fromEntries((await page.evaluate(() => window.go.app.Retention.Routes())).map((r) => [r.name, r.estimator]));
    const est = [];
    const route = [];
    // Once each to build their Analyses, then timed: a change must only re-decide.
    for (const r of pick) await change('route-select', r, { route: r });
    let from = await calls();
    for (let i = 0; i < (trace ? 10 : pick.length); i++) {
      const r = pick[i % pick.length];
      route.push(record('route', await change('route-select', r, { route: r, estimator: routeEst[r] })));
    }
    figures.routeBinding = summary(await binding(from));
    await change('route-select', pick[0], { route: pick[0] });
    const estimators = ['dsh-meter', 'o200k_base', 'cl100k_base'];
    for (const e of estimators) await change('estimator-select', e, { estimator: e });
    from = await calls();
    for (let i = 0; i < (trace ? 9 : 3); i++) {
      const e = estimators[i % 3];
      est.push(record('estimator', await change('estimator-select', e, { estimator: e })));
    }
    figures.estimatorBinding = summary(await binding(from));
    const policies = (await page.evaluate(() => window.go.app.Retention.Policies())).map((p) => p.name);
    const pol = [];
    from = await calls();
    for (let i = 0; i < (trace ? 2 : 1) * policies.length; i++) {
      const p = policies[i % policies.length];
      pol.push(record('policy', await change('policy-select', p, { policy: p })));
    }
    figures.policyBinding = summary(await binding(from));
    figures.route = summary(route);
    figures.estimator = summary(est);
    figures.policy = summary(pol);
  });

  test('the figures on screen are what Go decides for the same request', async () => {
    const got = await page.evaluate(async (id) => {
      const p = window.__trace.projection();
      const req = { resultId: id, budget: p.dataset.budget === 'off' ? undefined : Number(p.dataset.budget), policy: p.dataset.policy, route: p.dataset.route, estimator: p.dataset.estimator };
      const want = await window.go.app.Retention.Retain(req);
      return { shown: Number(document.querySelector('[data-testid=token-total]').dataset.value), want: want.tokens.total, status: document.querySelector('[data-testid=projection-status]')?.textContent, wantStatus: want.status };
    }, largest[0].id);
    assert.equal(got.shown, got.want);
  });
});
