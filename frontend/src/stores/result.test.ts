import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { checkJson, createResultStore, DEFAULT_BUDGET } from './result';
import { deferred, detail, fakeBridge, projection } from '../test/fakeBridge';
import type { PolicyInfo, FileSlice, Projection, RetainRequest } from '../bridge';

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const routes = [
  { name: 'anthropic', provider: 'anthropic', estimator: 'o200k_base', hasImages: true, source: '', note: '', calculator: 'anthropic' },
  { name: 'openai-tile', provider: 'openai', estimator: 'cl100k_base', hasImages: true, source: '', note: '', calculator: 'openai-tile' },
  { name: 'deepseek-v4.1', provider: 'deepseek', estimator: 'dsh-meter', hasImages: true, source: '', note: '', calculator: 'deepseek-v4.1' },
];
const policies = [
  { name: 'dsh-bytes', harness: 'dsh', version: 'up to 0.1.5', summary: '', estimator: 'dsh-meter', budget: 'maxInlineBytes', unit: 'bytes', defaultBudget: 50000, recoverable: 'file', recoverNote: '', source: '', unitsPerToken: 4, params: [] },
  { name: 'dsh-tokens', harness: 'dsh', version: '0.1.7+', summary: '', estimator: 'dsh-meter', budget: 'maxInlineTokens', unit: 'tokens', defaultBudget: 12500, recoverable: 'file', recoverNote: '', source: '', unitsPerToken: 1, params: [] },
] as unknown as PolicyInfo[];

function slice(over: Partial<FileSlice>): FileSlice {
  const next = (over.offset ?? 0) + new TextEncoder().encode(over.text ?? '').length;
  return { path: '/spill.txt', state: 'exists', detail: '', exists: true, size: 0, offset: 0, next, text: '', eof: true, masks: [], revealed: false, ...over } as FileSlice;
}

describe('result store: re-run at budget', () => {
  it('opens a result, projects it at once with dsh-tokens at the default budget on its own route, and takes its route and estimator', async () => {
    const retain = vi.fn((r: Partial<RetainRequest>) => Promise.resolve(projection({ budget: r.budget })));
    const result = deferred<ReturnType<typeof detail>>();
    const s = createResultStore(fakeBridge({ result: () => result.promise, retain }));
    const opened = s.open(7);
    // Asked before the detail answers: no route, so Go takes the session's and its estimator.
    expect(retain).toHaveBeenCalledWith({ resultId: 7, budget: DEFAULT_BUDGET, route: '', estimator: '', policy: 'dsh-tokens', paged: true });
    result.resolve(detail({ route: 'openai-tile', estimator: 'cl100k_base' }));
    await opened;
    expect(retain).toHaveBeenCalledTimes(1);
    expect(get(s)).toMatchObject({ route: 'openai-tile', estimator: 'cl100k_base' });
    expect(get(s).projection.state).toBe('ready');
    s.setBudget(900);
    expect(retain).toHaveBeenLastCalledWith({ resultId: 7, budget: 900, route: 'openai-tile', estimator: 'cl100k_base', policy: 'dsh-tokens', paged: true });
  });

  it('re-runs once the detail answers when the session names no route (the window keeps its own)', async () => {
    const retain = vi.fn((r: Partial<RetainRequest>) => Promise.resolve(projection({ budget: r.budget })));
    const s = createResultStore(fakeBridge({ routes: () => Promise.resolve(routes), result: () => Promise.resolve(detail({ route: '', estimator: '' })), retain }));
    await s.loadRoutes();
    s.setRoute('openai-tile');
    await s.open(7);
    expect(retain).toHaveBeenCalledTimes(2);
    expect(retain).toHaveBeenLastCalledWith(expect.objectContaining({ route: 'openai-tile', estimator: 'cl100k_base' }));
  });

  it('asks at once, and while an answer is out sends only the newest budget after it', async () => {
    const answers: ReturnType<typeof deferred<Projection>>[] = [];
    const retain = vi.fn((r: Partial<RetainRequest>) => {
      const d = deferred<Projection>();
      answers.push(d);
      return d.promise.then((p) => ({ ...p, budget: r.budget ?? null }) as Projection);
    });
    const s = createResultStore(fakeBridge({ result: () => Promise.resolve(detail()), retain }));
    const opened = s.open(7);
    await vi.advanceTimersByTimeAsync(0);
    answers[0].resolve(projection());
    await opened;
    retain.mockClear();
    s.setBudgetText('5');
    expect(retain).toHaveBeenCalledTimes(1); // no wait for a pause
    expect(retain).toHaveBeenLastCalledWith(expect.objectContaining({ budget: 5 }));
    s.setBudgetText('50');
    s.setBudgetText('500');
    await vi.advanceTimersByTimeAsync(1000);
    expect(retain).toHaveBeenCalledTimes(1); // one request at a time
    answers[1].resolve(projection());
    await vi.advanceTimersByTimeAsync(0);
    // The answer for 5 shows, marked as waiting, and only 500 is asked next: 50 was superseded.
    expect(retain).toHaveBeenCalledTimes(2);
    expect(retain).toHaveBeenLastCalledWith(expect.objectContaining({ budget: 500 }));
    let p = get(s).projection;
    expect(p.state).toBe('loading');
    if ('value' in p) expect(p.value?.budget).toBe(5);
    answers[2].resolve(projection());
    await vi.advanceTimersByTimeAsync(0);
    p = get(s).projection;
    expect(p.state).toBe('ready');
    if (p.state === 'ready') expect(p.value.budget).toBe(500);
  });

  it('reads each page of the open result once, and again after the credentials are revealed', async () => {
    const text = vi.fn((q: { block?: number; offset?: number; reveal?: boolean }) =>
      Promise.resolve({ start: q.offset ?? 0, end: (q.offset ?? 0) + 10, size: 100, text: q.reveal ? 'revealed..' : 'masked....', masks: [] }),
    );
    const s = createResultStore(fakeBridge({ result: () => Promise.resolve(detail()), retain: () => Promise.resolve(projection()), text: text as never }));
    await s.open(7);
    const a = await s.pages.block(0, 10);
    const b = await s.pages.block(0, 10);
    expect(a).toBe(b);
    expect(text).toHaveBeenCalledTimes(1);
    expect(text).toHaveBeenLastCalledWith({ resultId: 7, block: 0, offset: 10 });
    await s.setReveal(true);
    expect((await s.pages.block(0, 10)).text).toBe('revealed..');
    expect(text).toHaveBeenLastCalledWith({ resultId: 7, block: 0, offset: 10, reveal: true });
    expect(text).toHaveBeenCalledTimes(2);
  });

  it('refuses a bad budget without calling Go, and recovers', async () => {
    const retain = vi.fn(() => Promise.resolve(projection()));
    const s = createResultStore(fakeBridge({ result: () => Promise.resolve(detail()), retain }));
    await s.open(7);
    retain.mockClear();
    s.setBudgetText('12k');
    await vi.advanceTimersByTimeAsync(500);
    expect(retain).not.toHaveBeenCalled();
    expect(get(s).budgetError).toEqual({ token: '12k', problem: 'suffix' });
    expect(get(s).budget).toBe(DEFAULT_BUDGET);
    s.setBudgetText('-5');
    expect(get(s).budgetError?.problem).toBe('negative');
    s.setBudgetText('3000');
    expect(get(s).budgetError).toBeNull();
    await vi.advanceTimersByTimeAsync(150);
    expect(retain).toHaveBeenCalledWith(expect.objectContaining({ budget: 3000 }));
  });

  it('"off" sends no budget (retention disabled)', async () => {
    const retain = vi.fn(() => Promise.resolve(projection({ status: 'disabled' })));
    const s = createResultStore(fakeBridge({ result: () => Promise.resolve(detail()), retain }));
    await s.open(7);
    s.setOff(true);
    await vi.advanceTimersByTimeAsync(150);
    expect(retain).toHaveBeenLastCalledWith(expect.objectContaining({ budget: undefined }));
    // Even with a bad budget typed, "off" still runs.
    s.setBudgetText('abc');
    s.setOff(true);
    await vi.advanceTimersByTimeAsync(150);
    expect(retain).toHaveBeenCalledTimes(3);
  });

  it('a route change follows the route’s estimator; the estimator can then be overridden', async () => {
    const retain = vi.fn(() => Promise.resolve(projection()));
    const s = createResultStore(fakeBridge({ routes: () => Promise.resolve(routes), result: () => Promise.resolve(detail()), retain }));
    await s.loadRoutes();
    await s.open(7);
    s.setRoute('openai-tile');
    expect(get(s).estimator).toBe('cl100k_base');
    s.setRoute('deepseek-v4.1');
    expect(get(s).estimator).toBe('dsh-meter');
    s.setEstimator('o200k_base');
    await vi.advanceTimersByTimeAsync(150);
    expect(retain).toHaveBeenLastCalledWith({ resultId: 7, budget: DEFAULT_BUDGET, route: 'deepseek-v4.1', estimator: 'o200k_base', policy: 'dsh-tokens', paged: true });
  });

  it('a policy change moves the budget to that policy’s shipped default, in its unit', async () => {
    const retain = vi.fn(() => Promise.resolve(projection()));
    const s = createResultStore(
      fakeBridge({ routes: () => Promise.resolve(routes), policies: () => Promise.resolve(policies), result: () => Promise.resolve(detail()), retain }),
    );
    await s.loadRoutes();
    await s.open(7);
    s.setPolicy('dsh-bytes');
    expect(get(s).budget).toBe(50000);
    await vi.advanceTimersByTimeAsync(150);
    expect(retain).toHaveBeenLastCalledWith({ resultId: 7, budget: 50000, route: 'anthropic', estimator: 'o200k_base', policy: 'dsh-bytes', paged: true });
    s.setBudget(800);
    s.setPolicy('dsh-bytes'); // the same policy keeps the budget
    expect(get(s).budget).toBe(800);
  });

  it('routes still load when the policies binding fails', async () => {
    const s = createResultStore(fakeBridge({ routes: () => Promise.resolve(routes) }));
    await s.loadRoutes();
    expect(get(s).routes).toHaveLength(3);
    expect(get(s).policies).toEqual([]);
  });

  it('shows only the newest answer when an older one arrives late', async () => {
    const slow = deferred<Projection>();
    let n = 0;
    const retain = vi.fn(() => (++n === 2 ? slow.promise : Promise.resolve(projection({ budget: 900, status: 'replaced' }))));
    const s = createResultStore(fakeBridge({ result: () => Promise.resolve(detail()), retain }));
    await s.open(7); // call 1
    s.setBudget(100);
    await vi.advanceTimersByTimeAsync(150); // call 2, pending
    s.setBudget(900);
    await vi.advanceTimersByTimeAsync(150); // call 3, answered
    slow.resolve(projection({ budget: 100, status: 'notice_only' }));
    await vi.advanceTimersByTimeAsync(0);
    const p = get(s).projection;
    expect(p.state).toBe('ready');
    if (p.state === 'ready') expect(p.value.budget).toBe(900);
  });

  it('keeps the error of a failed projection', async () => {
    const s = createResultStore(fakeBridge({ result: () => Promise.resolve(detail()), retain: () => Promise.reject(new Error('app: not wired yet')) }));
    await s.open(7);
    expect(get(s).projection).toMatchObject({ state: 'error', error: { message: 'app: not wired yet', notWired: true } });
  });

  it('keeps the error of a result that cannot be read', async () => {
    const retain = vi.fn(() => Promise.reject(new Error('source moved')));
    const s = createResultStore(fakeBridge({ result: () => Promise.reject(new Error('source moved')), retain }));
    await s.open(7);
    await vi.advanceTimersByTimeAsync(0);
    expect(get(s).detail).toMatchObject({ state: 'error', error: { message: 'source moved', notWired: false } });
    expect(get(s).projection.state).not.toBe('ready');
  });
});

describe('result store: spill file pane', () => {
  it('reads the spill file in pages by UTF-8 byte offset', async () => {
    const spillFile = vi.fn((_id: number, offset: number) =>
      Promise.resolve(
        offset === 0
          ? slice({ path: '/resolved/spill.txt', size: 10, offset: 0, text: '索引', eof: false })
          : slice({ path: '/resolved/spill.txt', size: 10, offset, text: 'abcd', eof: true }),
      ),
    );
    const s = createResultStore(
      fakeBridge({ result: () => Promise.resolve(detail({}, { noticePath: '/spill.txt', noticeKind: 'spillscope' })), retain: () => Promise.resolve(projection()), spillFile }),
      { page: 6 },
    );
    await s.open(7);
    await vi.advanceTimersByTimeAsync(0);
    // The result's id, never a path: Go decides which file that is.
    expect(spillFile).toHaveBeenCalledWith(7, 0, 6);
    let f = get(s).file;
    expect(f).toMatchObject({ state: 'ready', path: '/resolved/spill.txt', text: '索引', next: 6, eof: false });
    await s.loadMore();
    expect(spillFile).toHaveBeenLastCalledWith(7, 6, 6);
    f = get(s).file;
    expect(f).toMatchObject({ state: 'ready', text: '索引abcd', next: 10, eof: true });
    await s.loadMore(); // at the end: no call
    expect(spillFile).toHaveBeenCalledTimes(2);
  });

  it('shows a missing spill file as a state, not an error', async () => {
    const s = createResultStore(
      fakeBridge({
        result: () => Promise.resolve(detail({}, { noticePath: '/gone.txt', noticeKind: 'claude-persisted-output' })),
        retain: () => Promise.resolve(projection()),
        spillFile: () => Promise.resolve(slice({ path: '/gone.txt', state: 'missing', exists: false })),
      }),
    );
    await s.open(7);
    await vi.advanceTimersByTimeAsync(0);
    expect(get(s).file).toEqual({ state: 'missing', path: '/gone.txt' });
  });

  it('shows a file outside the harness folders as not opened, and an unreadable one with why', async () => {
    for (const [sl, want] of [
      [slice({ path: '/etc/shadow', state: 'outside', exists: false }), { state: 'outside', path: '/etc/shadow' }],
      [slice({ path: '/tmp/dsh-spill-x/session-0123456789ab/a-bash.txt', state: 'other-session', exists: false }),
        { state: 'outside', path: '/tmp/dsh-spill-x/session-0123456789ab/a-bash.txt', other: true }],
      [slice({ path: '/s/fifo.txt', state: 'unreadable', detail: 'not a regular file', exists: false }), { state: 'unreadable', path: '/s/fifo.txt', detail: 'not a regular file' }],
    ] as const) {
      const s = createResultStore(
        fakeBridge({
          result: () => Promise.resolve(detail({}, { noticePath: sl.path, noticeKind: 'claude-persisted-output' })),
          retain: () => Promise.resolve(projection()),
          spillFile: () => Promise.resolve(sl),
        }),
      );
      await s.open(7);
      await vi.advanceTimersByTimeAsync(0);
      expect(get(s).file).toEqual(want);
    }
  });

  it('does not read a file when the result names none', async () => {
    const spillFile = vi.fn();
    const s = createResultStore(fakeBridge({ result: () => Promise.resolve(detail()), retain: () => Promise.resolve(projection()), spillFile }));
    await s.open(7);
    expect(spillFile).not.toHaveBeenCalled();
    expect(get(s).file).toEqual({ state: 'none' });
  });

  it('keeps what was loaded when "load more" fails', async () => {
    let n = 0;
    const spillFile = vi.fn(() => (++n === 1 ? Promise.resolve(slice({ size: 20, text: 'head', eof: false })) : Promise.reject(new Error('io'))));
    const s = createResultStore(fakeBridge({ result: () => Promise.resolve(detail({}, { noticePath: '/s.txt' })), retain: () => Promise.resolve(projection()), spillFile }));
    await s.open(7);
    await vi.advanceTimersByTimeAsync(0);
    await s.loadMore();
    expect(get(s).file).toMatchObject({ state: 'ready', text: 'head', more: false, moreError: { message: 'io' } });
  });
});

describe('result store: reveal credentials', () => {
  it('asks every pane again with reveal set, and forgets it when another result opens', async () => {
    const result = vi.fn((id: number, reveal?: boolean) => Promise.resolve(detail({ masked: reveal ? 0 : 2, revealed: !!reveal }, { id, noticePath: '/s.txt' })));
    const retain = vi.fn(() => Promise.resolve(projection()));
    const spillFile = vi.fn((_id: number, offset: number, _limit: number, reveal?: boolean) =>
      Promise.resolve(slice({ path: '/s.txt', offset, text: reveal ? 'token=abc' : 'token=[redacted]', size: 9 })),
    );
    const s = createResultStore(fakeBridge({ result: result as never, retain, spillFile: spillFile as never }), { page: 64 });
    await s.open(7);
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toHaveBeenLastCalledWith(7);
    expect(spillFile).toHaveBeenLastCalledWith(7, 0, 64);
    expect(retain).toHaveBeenLastCalledWith(expect.not.objectContaining({ reveal: true }));
    await s.setReveal(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(get(s).reveal).toBe(true);
    expect(result).toHaveBeenLastCalledWith(7, true);
    expect(spillFile).toHaveBeenLastCalledWith(7, 0, 64, true);
    expect(retain).toHaveBeenLastCalledWith(expect.objectContaining({ resultId: 7, reveal: true }));
    expect(get(s).file).toMatchObject({ text: 'token=abc' });
    // Closing the result (opening another) hides them again.
    await s.open(8);
    await vi.advanceTimersByTimeAsync(0);
    expect(get(s).reveal).toBe(false);
    expect(result).toHaveBeenLastCalledWith(8);
    expect(spillFile).toHaveBeenLastCalledWith(8, 0, 64);
    expect(get(s).file).toMatchObject({ text: 'token=[redacted]' });
    await s.setReveal(true);
    s.openPaste('');
    expect(get(s).reveal).toBe(false);
    s.destroy();
    expect(get(s).reveal).toBe(false);
  });

  it('forgets a revealed result when its view closes, so reopening reads it masked', async () => {
    const result = vi.fn((id: number, reveal?: boolean) => Promise.resolve(detail({ revealed: !!reveal }, { id })));
    const s = createResultStore(fakeBridge({ result: result as never, retain: () => Promise.resolve(projection()) }));
    await s.open(7);
    s.close(); // nothing revealed: the result stays loaded
    expect(get(s)).toMatchObject({ resultId: 7, detail: { state: 'ready' } });
    await s.setReveal(true);
    expect(get(s).detail).toMatchObject({ state: 'ready', value: { revealed: true } });
    s.close();
    expect(get(s)).toMatchObject({ resultId: 0, reveal: false, detail: { state: 'idle' }, projection: { state: 'idle' }, file: { state: 'none' } });
    await s.open(7);
    expect(result).toHaveBeenLastCalledWith(7);
    expect(get(s).detail).toMatchObject({ value: { revealed: false } });
  });

  it('pages a masked file by the offsets Go gives and keeps each page\'s masks where it lands', async () => {
    const mask = (at: number) => ({ start: 0, end: 0, at, kind: 'parameter', parameter: 'sig' });
    const spillFile = vi.fn((_id: number, offset: number) =>
      Promise.resolve(
        offset === 0
          ? slice({ path: '/s.txt', size: 40, offset: 0, next: 20, text: 'é sig=[redacted]', masks: [mask(7)], eof: false })
          : slice({ path: '/s.txt', size: 40, offset, next: 40, text: ' sig=[redacted]', masks: [mask(5)], eof: true }),
      ),
    );
    const s = createResultStore(fakeBridge({ result: () => Promise.resolve(detail({}, { noticePath: '/s.txt' })), retain: () => Promise.resolve(projection()), spillFile }));
    await s.open(7);
    await vi.advanceTimersByTimeAsync(0);
    await s.loadMore();
    expect(spillFile).toHaveBeenLastCalledWith(7, 20, expect.any(Number));
    expect(get(s).file).toMatchObject({ next: 40, eof: true, masks: [mask(7), mask(22)] });
  });
});

describe('result store: playground', () => {
  it('checks the JSON before asking Go and sends pasted JSON with the tool name', async () => {
    const retain = vi.fn(() => Promise.resolve(projection()));
    const s = createResultStore(fakeBridge({ routes: () => Promise.resolve(routes), retain }));
    await s.loadRoutes();
    s.openPaste('');
    await vi.advanceTimersByTimeAsync(150);
    expect(retain).not.toHaveBeenCalled();
    expect(get(s).jsonProblem).toEqual({ kind: 'empty' });
    s.setJson('{"content": [');
    await vi.advanceTimersByTimeAsync(150);
    expect(retain).not.toHaveBeenCalled();
    expect(get(s).jsonProblem?.kind).toBe('invalid');
    // Valid JSON of the wrong shape is an input problem too, never sent to Go.
    for (const wrong of ['{}', '42', 'null', '"text"', '{"content":"x"}', '{"content":{"type":"text"}}']) {
      s.setJson(wrong);
      await vi.advanceTimersByTimeAsync(150);
      expect(get(s).jsonProblem, wrong).toEqual({ kind: 'shape' });
    }
    expect(retain).not.toHaveBeenCalled();
    s.setJson('[{"type":"text","text":"a bare content array"}]');
    expect(get(s).jsonProblem).toBeNull();
    const json = '{"content":[{"type":"text","text":"hi"}]}';
    s.setJson(json);
    s.setToolName('Bash');
    await vi.advanceTimersByTimeAsync(150);
    expect(retain).toHaveBeenCalledTimes(1);
    expect(retain).toHaveBeenCalledWith({ json, budget: DEFAULT_BUDGET, route: 'anthropic', estimator: 'o200k_base', policy: 'dsh-tokens', toolName: 'Bash' });
  });

  it('checkJson tells empty, invalid and valid apart', () => {
    expect(checkJson('  ')).toEqual({ kind: 'empty' });
    expect(checkJson('[1,')).toMatchObject({ kind: 'invalid' });
    expect(checkJson('[]')).toBeNull();
  });
});
