import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createSessionsStore } from './sessions';
import { events, fakeBridge, liveStatus, page, resultRow, session, status } from '../test/fakeBridge';
import type { IndexChange, IndexStatus, ResultPage, ResultsQuery, SessionPage, SessionQuery, SessionRow, ResultRow } from '../bridge';

const sessionsOf = (rows: SessionRow[]): SessionPage => ({ rows, total: rows.length, sessions: rows.length }) as SessionPage;
const resultsOf = (rows: ResultRow[]): ResultPage => page(rows, 0, 1000) as ResultPage;

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('sessions store: indexing and live changes', () => {
  const change = (over: Partial<IndexChange> = {}): IndexChange => ({ sessions: [], results: [], all: false, status: status(), ...over });

  it('follows a pass by its pushed progress and end, asking Go for nothing meanwhile', async () => {
    const bus = events();
    const indexStatus = vi.fn(() => Promise.resolve(status({ seq: 1 })));
    const listSessions = vi.fn(() => Promise.resolve(sessionsOf([session()])));
    const s = createSessionsStore(fakeBridge({ on: bus.on, startIndex: () => Promise.resolve(status({ running: true, seq: 1 })), indexStatus, listSessions }));
    await s.init();
    await s.showList();
    expect(bus.count('index:changed')).toBe(1);
    await s.startIndex();
    expect(get(s).status?.running).toBe(true);
    bus.push('index:progress', status({ running: true, files: 4, filesDone: 3, seq: 2 }));
    expect(get(s).status?.filesDone).toBe(3);
    await vi.advanceTimersByTimeAsync(10000);
    expect(indexStatus).toHaveBeenCalledTimes(1);
    expect(listSessions).toHaveBeenCalledTimes(1);
    bus.push('index:changed', change({ all: true, status: status({ running: false, sessions: 2, seq: 3 }) }));
    await vi.advanceTimersByTimeAsync(0);
    expect(get(s).status).toMatchObject({ running: false, sessions: 2 });
    expect(listSessions).toHaveBeenCalledTimes(2);
    expect(get(s).changes).toBe(1);
  });

  it('keeps the newest status: an answer that left before a push does not undo it', async () => {
    const bus = events();
    let answer!: (st: IndexStatus) => void;
    const s = createSessionsStore(
      fakeBridge({ on: bus.on, startIndex: () => new Promise((r) => (answer = r)), listSessions: () => Promise.resolve(sessionsOf([])) }),
    );
    const started = s.startIndex();
    await vi.advanceTimersByTimeAsync(0);
    // The pass ended before its start was answered.
    bus.push('index:changed', change({ all: true, status: status({ running: false, sessions: 5, seq: 7 }) }));
    answer(status({ running: true, seq: 6 }));
    await started;
    expect(get(s).status).toMatchObject({ running: false, sessions: 5, seq: 7 });
  });

  it('reloads the open session (and counts it for its timeline) only when a change names it', async () => {
    const bus = events();
    const sessionResults = vi.fn(() => Promise.resolve(resultsOf([resultRow({ id: 1 })])));
    const listSessions = vi.fn(() => Promise.resolve(sessionsOf([session()])));
    const s = createSessionsStore(fakeBridge({ on: bus.on, indexStatus: () => Promise.resolve(status()), sessionResults, listSessions }));
    await s.init();
    await s.showList();
    await s.openSession(1);
    expect(sessionResults).toHaveBeenCalledTimes(1);
    bus.push('index:changed', change({ sessions: [2], results: [40] }));
    await vi.advanceTimersByTimeAsync(0);
    expect(sessionResults).toHaveBeenCalledTimes(1);
    expect(listSessions).toHaveBeenCalledTimes(2);
    expect(get(s).openChanges).toBe(0);
    bus.push('index:changed', change({ sessions: [2, 1], results: [41] }));
    await vi.advanceTimersByTimeAsync(0);
    expect(sessionResults).toHaveBeenCalledTimes(2);
    expect(get(s).openChanges).toBe(1);
    bus.push('index:changed', change({ all: true }));
    await vi.advanceTimersByTimeAsync(0);
    expect(sessionResults).toHaveBeenCalledTimes(3);
    expect(get(s).openChanges).toBe(2);
  });

  it('does nothing while nothing changes', async () => {
    const bus = events();
    const indexStatus = vi.fn(() => Promise.resolve(status()));
    const listSessions = vi.fn(() => Promise.resolve(sessionsOf([session()])));
    const sessionResults = vi.fn(() => Promise.resolve(resultsOf([])));
    const s = createSessionsStore(fakeBridge({ on: bus.on, indexStatus, listSessions, sessionResults }));
    await s.init();
    await s.showList();
    await s.openSession(1);
    await vi.advanceTimersByTimeAsync(60000);
    expect(indexStatus).toHaveBeenCalledTimes(1);
    expect(listSessions).toHaveBeenCalledTimes(1);
    expect(sessionResults).toHaveBeenCalledTimes(1);
    s.destroy();
    expect(bus.count('index:changed')).toBe(0);
  });

  it('asks for the list only once a screen shows it; until then a change does not reload it', async () => {
    const bus = events();
    const listSessions = vi.fn(() => Promise.resolve(sessionsOf([session()])));
    const s = createSessionsStore(fakeBridge({ on: bus.on, indexStatus: () => Promise.resolve(status()), listSessions }));
    await s.init();
    bus.push('index:changed', change({ all: true }));
    await vi.advanceTimersByTimeAsync(0);
    expect(listSessions).not.toHaveBeenCalled();
    expect(get(s).changes).toBe(1);
    await s.showList();
    expect(listSessions).toHaveBeenCalledTimes(1);
    expect(get(s.list).total).toBe(1);
    bus.push('index:changed', change({ all: true }));
    await vi.advanceTimersByTimeAsync(0);
    expect(listSessions).toHaveBeenCalledTimes(2);
    // Shown again (the screen comes back): the pages on screen reload.
    await s.showList();
    expect(listSessions).toHaveBeenCalledTimes(3);
  });

  it('takes the live status, pushed or answered, and pauses through Go', async () => {
    const bus = events();
    const setLivePaused = vi.fn((paused: boolean) => Promise.resolve(liveStatus({ paused })));
    const s = createSessionsStore(fakeBridge({ on: bus.on, indexStatus: () => Promise.resolve(status()), listSessions: () => Promise.resolve(sessionsOf([])), setLivePaused }));
    await s.init();
    await vi.advanceTimersByTimeAsync(0);
    expect(get(s).live).toMatchObject({ state: 'live', paused: false });
    bus.push('live:status', liveStatus({ state: 'limited', unwatched: 4, setting: 'fs.inotify.max_user_watches' }));
    expect(get(s).live).toMatchObject({ state: 'limited', unwatched: 4 });
    await s.setLivePaused(true);
    expect(setLivePaused).toHaveBeenCalledWith(true);
    expect(get(s).live?.paused).toBe(true);
  });

  it('where no event reaches the page, asks every 5 s and reloads only when the status moved', async () => {
    const statuses = [status({ seq: 0 }), status({ seq: 0 }), status({ toolResults: 3, lastIndexedAt: 99 })];
    const indexStatus = vi.fn(() => Promise.resolve(statuses.shift() ?? status({ toolResults: 3, lastIndexedAt: 99 })));
    const listSessions = vi.fn(() => Promise.resolve(sessionsOf([])));
    const s = createSessionsStore(fakeBridge({ indexStatus, listSessions }));
    await s.init();
    await s.showList();
    expect(get(s).pushed).toBe(false);
    await vi.advanceTimersByTimeAsync(4999);
    expect(indexStatus).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(indexStatus).toHaveBeenCalledTimes(2);
    expect(listSessions).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(get(s).status?.toolResults).toBe(3);
    expect(listSessions).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(5000);
    expect(listSessions).toHaveBeenCalledTimes(2);
    s.destroy();
    await vi.advanceTimersByTimeAsync(20000);
    expect(indexStatus).toHaveBeenCalledTimes(4);
  });

  it('does not start a reload while the previous one is still in flight', async () => {
    const bus = events();
    let first = true;
    const slow = new Promise<never>(() => {});
    const sessionResults = vi.fn((): Promise<ResultPage> => {
      if (first) {
        first = false;
        return Promise.resolve(resultsOf([resultRow()]));
      }
      return slow;
    });
    const s = createSessionsStore(fakeBridge({ on: bus.on, indexStatus: () => Promise.resolve(status()), sessionResults, listSessions: () => Promise.resolve(sessionsOf([])) }));
    await s.init();
    await s.openSession(1);
    for (let i = 0; i < 4; i++) bus.push('index:changed', change({ sessions: [1] }));
    await vi.advanceTimersByTimeAsync(2000);
    expect(sessionResults).toHaveBeenCalledTimes(2);
    s.destroy();
  });

  it('reports a start failure, and marks "not wired yet" so the screen can translate it', async () => {
    const s = createSessionsStore(fakeBridge({ startIndex: () => Promise.reject(new Error('app: not wired yet')) }));
    await s.startIndex();
    expect(get(s).indexError).toEqual({ code: 'failed', params: {}, message: 'app: not wired yet', notWired: true });
  });
});

describe('sessions store: list and filters', () => {
  it('passes the harness filter and the page to Go and learns harness names from rows', async () => {
    const listSessions = vi.fn((q: Partial<SessionQuery>) => Promise.resolve(sessionsOf(q.harness === 'future-harness' ? [] : [session({ harness: 'future-harness' })])));
    const s = createSessionsStore(fakeBridge({ listSessions, indexStatus: () => Promise.resolve(status()) }), { pageSize: 50 });
    await s.init();
    await s.showList();
    expect(get(s).harnesses).toContain('future-harness');
    await s.setHarness('future-harness');
    expect(listSessions).toHaveBeenLastCalledWith({ harness: 'future-harness', search: '', order: '', offset: 0, limit: 50 });
    expect(get(s.list).total).toBe(0);
    expect(get(s).harnesses).toContain('future-harness');
  });

  it('counts sessions and transcripts as Go counts the whole list', async () => {
    const listSessions = vi.fn(() => Promise.resolve({ rows: [session()], total: 810, sessions: 600 } as SessionPage));
    const s = createSessionsStore(fakeBridge({ listSessions, indexStatus: () => Promise.resolve(status()) }));
    await s.init();
    await s.showList();
    expect(get(s.list)).toMatchObject({ total: 810, last: { sessions: 600, total: 810 } });
  });

  it('passes the order to Go and keeps it with the other filters', async () => {
    const listSessions = vi.fn((_q: Partial<SessionQuery>) => Promise.resolve(sessionsOf([session({ id: 3, tokens: 900, tokensExact: false })])));
    const s = createSessionsStore(fakeBridge({ listSessions }));
    await s.setOrder('tokens');
    expect(listSessions).toHaveBeenLastCalledWith(expect.objectContaining({ harness: '', search: '', order: 'tokens' }));
    await s.setHarness('codex');
    expect(listSessions).toHaveBeenLastCalledWith(expect.objectContaining({ harness: 'codex', search: '', order: 'tokens' }));
    expect(get(s).order).toBe('tokens');
  });

  it('debounces the search box', async () => {
    const listSessions = vi.fn((_q: Partial<SessionQuery>) => Promise.resolve(sessionsOf([])));
    const s = createSessionsStore(fakeBridge({ listSessions }), { searchDebounceMs: 200 });
    s.setSearch('s');
    s.setSearch('sh');
    s.setSearch('shop');
    await vi.advanceTimersByTimeAsync(199);
    expect(listSessions).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(listSessions).toHaveBeenCalledTimes(1);
    expect(listSessions).toHaveBeenCalledWith(expect.objectContaining({ harness: '', search: 'shop', order: '' }));
  });

  it('keeps only the newest answer when calls overlap', async () => {
    let release: ((v: SessionPage) => void) | undefined;
    let n = 0;
    const listSessions = vi.fn(() => {
      n++;
      if (n === 1) return new Promise<SessionPage>((r) => (release = r));
      return Promise.resolve(sessionsOf([session({ id: 2 })]));
    });
    const s = createSessionsStore(fakeBridge({ listSessions }));
    const first = s.refresh();
    await s.setHarness('codex');
    release?.(sessionsOf([]));
    await first;
    expect(s.list.rows()).toEqual([session({ id: 2 })]);
  });

  it('shows a list error', async () => {
    const s = createSessionsStore(fakeBridge({ listSessions: () => Promise.reject(new Error('boom')) }));
    await s.refresh();
    expect(get(s.list).error).toMatchObject({ code: 'failed', message: 'boom' });
  });

  it('opens a session and pages its results in the chosen order; closing forgets them', async () => {
    const sessionResults = vi.fn((_q: Partial<ResultsQuery>) => Promise.resolve(resultsOf([resultRow()])));
    const s = createSessionsStore(fakeBridge({ sessionResults }), { pageSize: 25 });
    await s.openSession(1);
    expect(sessionResults).toHaveBeenCalledWith({ sessionId: 1, order: '', onlyNotices: false, offset: 0, limit: 25 });
    expect(s.results.rows()).toEqual([resultRow()]);
    await s.setResultsOrder('tokens');
    await s.setOnlyNotices(true);
    expect(sessionResults).toHaveBeenLastCalledWith({ sessionId: 1, order: 'tokens', onlyNotices: true, offset: 0, limit: 25 });
    s.closeSession();
    expect(get(s).sessionId).toBe(0);
    expect(get(s.results).total).toBe(-1);
    expect(s.results.rows()).toEqual([]);
  });

  it('never shows one session\'s results under another while it loads', async () => {
    let release: (p: ResultPage) => void = () => {};
    const pending = new Promise<ResultPage>((r) => (release = r));
    const sessionResults = vi.fn((q: Partial<ResultsQuery>) => (q.sessionId === 1 ? Promise.resolve(resultsOf([resultRow()])) : pending));
    const s = createSessionsStore(fakeBridge({ sessionResults }));
    await s.openSession(1);
    const opening = s.openSession(2);
    expect(get(s).sessionId).toBe(2);
    expect(s.results.rows()).toEqual([]);
    expect(get(s.results).total).toBe(-1);
    release(resultsOf([]));
    await opening;
    expect(get(s.results).total).toBe(0);
  });

  it('keeps the rows on screen while the same session reloads', async () => {
    const sessionResults = vi.fn(() => Promise.resolve(resultsOf([resultRow()])));
    const s = createSessionsStore(fakeBridge({ sessionResults }));
    await s.openSession(1);
    const again = s.openSession(1);
    expect(s.results.rows()).toEqual([resultRow()]);
    await again;
    expect(sessionResults).toHaveBeenCalledTimes(2);
  });

  it('loads the skipped-line diagnostics', async () => {
    const diag = [{ file: '/a.jsonl', line: 4, code: 'not-json', params: { start: '"//"' }, message: 'bad json', count: 3 }];
    const s = createSessionsStore(fakeBridge({ diagnostics: () => Promise.resolve(diag) }));
    await s.loadDiagnostics();
    expect(get(s).diagnostics).toEqual({ state: 'ready', value: diag });
  });
});
