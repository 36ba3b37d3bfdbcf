import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createSessionsStore } from './sessions';
import { fakeBridge, resultRow, session, status } from '../test/fakeBridge';

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('sessions store: indexing', () => {
  it('polls every 500 ms while a pass runs, then stops and reloads the list', async () => {
    const statuses = [
      status({ running: true, files: 4, filesDone: 1 }),
      status({ running: true, files: 4, filesDone: 3 }),
      status({ running: false, sessions: 2 }),
    ];
    const indexStatus = vi.fn(() => Promise.resolve(statuses.shift() ?? status()));
    const listSessions = vi.fn(() => Promise.resolve([session()]));
    const s = createSessionsStore(
      fakeBridge({ startIndex: () => Promise.resolve(status({ running: true })), indexStatus, listSessions }),
    );
    await s.startIndex();
    expect(get(s).polling).toBe(true);
    expect(indexStatus).not.toHaveBeenCalled();

    await vi.advanceTimersByTimeAsync(499);
    expect(indexStatus).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(indexStatus).toHaveBeenCalledTimes(1);
    expect(get(s).status?.filesDone).toBe(1);

    await vi.advanceTimersByTimeAsync(500);
    expect(get(s).status?.filesDone).toBe(3);
    await vi.advanceTimersByTimeAsync(500);
    expect(indexStatus).toHaveBeenCalledTimes(3);
    expect(get(s).polling).toBe(false);
    expect(get(s).status?.sessions).toBe(2);
    expect(get(s).sessions).toEqual({ state: 'ready', value: [session()] });

    // Stopped: no more calls however long we wait.
    await vi.advanceTimersByTimeAsync(5000);
    expect(indexStatus).toHaveBeenCalledTimes(3);
  });

  it('reloads the open session while a pass runs, so its figures turn exact as they are counted', async () => {
    const statuses = [status({ running: true, phase: 'tokens' }), status({ running: false })];
    const indexStatus = vi.fn(() => Promise.resolve(statuses.shift() ?? status()));
    const answers = [
      [resultRow({ id: 1, tokens: 300, tokensExact: false })],
      [resultRow({ id: 1, tokens: 280, tokensExact: true })],
      [resultRow({ id: 1, tokens: 280, tokensExact: true })],
    ];
    const sessionResults = vi.fn(() => Promise.resolve(answers.shift() ?? []));
    const s = createSessionsStore(
      fakeBridge({
        startIndex: () => Promise.resolve(status({ running: true })),
        indexStatus,
        sessionResults,
        listSessions: () => Promise.resolve([session()]),
      }),
    );
    await s.openSession(1);
    expect(get(s).results).toEqual({ state: 'ready', value: [resultRow({ id: 1, tokens: 300, tokensExact: false })] });
    await s.startIndex();
    await vi.advanceTimersByTimeAsync(500);
    expect(sessionResults).toHaveBeenCalledTimes(2);
    expect(get(s).results).toEqual({ state: 'ready', value: [resultRow({ id: 1, tokens: 280, tokensExact: true })] });
    await vi.advanceTimersByTimeAsync(500);
    expect(sessionResults).toHaveBeenCalledTimes(3);
    expect(get(s).polling).toBe(false);
  });

  it('does not start a reload while the previous one is still in flight', async () => {
    const indexStatus = vi.fn(() => Promise.resolve(status({ running: true })));
    let first = true;
    const slow = new Promise<never[]>(() => {});
    const sessionResults = vi.fn(() => {
      if (first) {
        first = false;
        return Promise.resolve([resultRow()]);
      }
      return slow;
    });
    const listSessions = vi.fn(() => slow);
    const s = createSessionsStore(fakeBridge({ startIndex: () => Promise.resolve(status({ running: true })), indexStatus, sessionResults, listSessions }));
    await s.openSession(1);
    await s.startIndex();
    await vi.advanceTimersByTimeAsync(2000);
    expect(indexStatus).toHaveBeenCalledTimes(4);
    expect(sessionResults).toHaveBeenCalledTimes(2);
    expect(listSessions).toHaveBeenCalledTimes(1);
    s.destroy();
  });

  it('stops polling and keeps the error when a status call fails', async () => {
    const indexStatus = vi.fn(() => Promise.reject(new Error('db locked')));
    const s = createSessionsStore(
      fakeBridge({ startIndex: () => Promise.resolve(status({ running: true })), indexStatus, listSessions: () => Promise.resolve([]) }),
    );
    await s.startIndex();
    await vi.advanceTimersByTimeAsync(500);
    expect(get(s).polling).toBe(false);
    expect(get(s).indexError).toEqual({ message: 'db locked', notWired: false });
    await vi.advanceTimersByTimeAsync(3000);
    expect(indexStatus).toHaveBeenCalledTimes(1);
  });

  it('reports a start failure, and marks "not wired yet" so the screen can translate it', async () => {
    const s = createSessionsStore(fakeBridge({ startIndex: () => Promise.reject(new Error('app: not wired yet')) }));
    await s.startIndex();
    expect(get(s).indexError).toEqual({ message: 'app: not wired yet', notWired: true });
    expect(get(s).polling).toBe(false);
  });

  it('resumes polling on init when a pass is already running, and destroy stops it', async () => {
    const indexStatus = vi.fn(() => Promise.resolve(status({ running: true })));
    const s = createSessionsStore(fakeBridge({ indexStatus, listSessions: () => Promise.resolve([]) }));
    await s.init();
    expect(get(s).polling).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(indexStatus).toHaveBeenCalledTimes(3);
    s.destroy();
    await vi.advanceTimersByTimeAsync(3000);
    expect(indexStatus).toHaveBeenCalledTimes(3);
    expect(get(s).polling).toBe(false);
  });

  it('does not poll after a pass that finished at once', async () => {
    const indexStatus = vi.fn(() => Promise.resolve(status()));
    const s = createSessionsStore(
      fakeBridge({ startIndex: () => Promise.resolve(status({ running: false })), indexStatus, listSessions: () => Promise.resolve([]) }),
    );
    await s.startIndex();
    await vi.advanceTimersByTimeAsync(2000);
    expect(indexStatus).not.toHaveBeenCalled();
    expect(get(s).sessions.state).toBe('ready');
  });
});

describe('sessions store: list and filters', () => {
  it('passes the harness filter to Go and learns harness names from rows', async () => {
    const listSessions = vi.fn((q: { harness?: string }) =>
      Promise.resolve(q.harness === 'opencode' ? [] : [session({ harness: 'opencode' })]),
    );
    const s = createSessionsStore(fakeBridge({ listSessions: listSessions as never, indexStatus: () => Promise.resolve(status()) }));
    await s.init();
    expect(get(s).harnesses).toContain('opencode');
    await s.setHarness('opencode');
    expect(listSessions).toHaveBeenLastCalledWith({ harness: 'opencode', search: '', order: '' });
    expect(get(s).sessions).toEqual({ state: 'ready', value: [] });
    expect(get(s).harnesses).toContain('opencode');
  });

  it('passes the order to Go and keeps it with the other filters', async () => {
    const listSessions = vi.fn(() => Promise.resolve([session({ id: 3, tokens: 900, tokensExact: false })]));
    const s = createSessionsStore(fakeBridge({ listSessions }));
    await s.setOrder('tokens');
    expect(listSessions).toHaveBeenLastCalledWith({ harness: '', search: '', order: 'tokens' });
    await s.setHarness('codex');
    expect(listSessions).toHaveBeenLastCalledWith({ harness: 'codex', search: '', order: 'tokens' });
    expect(get(s).order).toBe('tokens');
  });

  it('debounces the search box', async () => {
    const listSessions = vi.fn(() => Promise.resolve([]));
    const s = createSessionsStore(fakeBridge({ listSessions }), { searchDebounceMs: 200 });
    s.setSearch('s');
    s.setSearch('sh');
    s.setSearch('shop');
    await vi.advanceTimersByTimeAsync(199);
    expect(listSessions).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(listSessions).toHaveBeenCalledTimes(1);
    expect(listSessions).toHaveBeenCalledWith({ harness: '', search: 'shop', order: '' });
  });

  it('keeps only the newest answer when calls overlap', async () => {
    let release: ((v: never[]) => void) | undefined;
    let n = 0;
    const listSessions = vi.fn(() => {
      n++;
      if (n === 1) return new Promise<never[]>((r) => (release = r));
      return Promise.resolve([session({ id: 2 })]);
    });
    const s = createSessionsStore(fakeBridge({ listSessions: listSessions as never }));
    const first = s.refresh();
    await s.setHarness('codex');
    release?.([]);
    await first;
    expect(get(s).sessions).toEqual({ state: 'ready', value: [session({ id: 2 })] });
  });

  it('shows a list error', async () => {
    const s = createSessionsStore(fakeBridge({ listSessions: () => Promise.reject(new Error('boom')) }));
    await s.refresh();
    expect(get(s).sessions).toEqual({ state: 'error', error: { message: 'boom', notWired: false } });
  });

  it('opens a session and lists its results; closing forgets them', async () => {
    const sessionResults = vi.fn(() => Promise.resolve([resultRow()]));
    const s = createSessionsStore(fakeBridge({ sessionResults }));
    await s.openSession(1);
    expect(sessionResults).toHaveBeenCalledWith(1);
    expect(get(s).results).toEqual({ state: 'ready', value: [resultRow()] });
    s.closeSession();
    expect(get(s).sessionId).toBe(0);
    expect(get(s).results.state).toBe('idle');
  });

  it('never shows one session\'s results under another while it loads', async () => {
    let release: (rows: never[]) => void = () => {};
    const pending = new Promise<never[]>((r) => (release = r));
    const sessionResults = vi.fn((id: number) => (id === 1 ? Promise.resolve([resultRow()]) : pending));
    const s = createSessionsStore(fakeBridge({ sessionResults: sessionResults as never }));
    await s.openSession(1);
    const opening = s.openSession(2);
    expect(get(s).sessionId).toBe(2);
    expect(get(s).results).toEqual({ state: 'loading', value: undefined });
    release([]);
    await opening;
    expect(get(s).results).toEqual({ state: 'ready', value: [] });
  });

  it('keeps the rows on screen while the same session reloads', async () => {
    const sessionResults = vi.fn(() => Promise.resolve([resultRow()]));
    const s = createSessionsStore(fakeBridge({ sessionResults }));
    await s.openSession(1);
    const again = s.openSession(1);
    expect(get(s).results).toEqual({ state: 'loading', value: [resultRow()] });
    await again;
  });

  it('loads the skipped-line diagnostics', async () => {
    const diag = [{ file: '/a.jsonl', line: 4, code: 'not-json', params: { start: '"//"' }, message: 'bad json', count: 3 }];
    const s = createSessionsStore(fakeBridge({ diagnostics: () => Promise.resolve(diag) }));
    await s.loadDiagnostics();
    expect(get(s).diagnostics).toEqual({ state: 'ready', value: diag });
  });
});
