import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createSessionsStore } from './sessions';
import { fakeBridge, page, resultRow, session, status } from '../test/fakeBridge';
import type { ResultPage, ResultsQuery, SessionPage, SessionQuery, SessionRow, ResultRow } from '../bridge';

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

describe('sessions store: indexing', () => {
  it('polls every 500 ms while a pass runs, then stops and reloads the list', async () => {
    const statuses = [
      status({ running: true, files: 4, filesDone: 1 }),
      status({ running: true, files: 4, filesDone: 3 }),
      status({ running: false, sessions: 2 }),
    ];
    const indexStatus = vi.fn(() => Promise.resolve(statuses.shift() ?? status()));
    const listSessions = vi.fn(() => Promise.resolve(sessionsOf([session()])));
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
    expect(s.list.rows()).toEqual([session()]);
    expect(get(s.list).total).toBe(1);

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
    const sessionResults = vi.fn(() => Promise.resolve(resultsOf(answers.shift() ?? [])));
    const s = createSessionsStore(
      fakeBridge({
        startIndex: () => Promise.resolve(status({ running: true })),
        indexStatus,
        sessionResults,
        listSessions: () => Promise.resolve(sessionsOf([session()])),
      }),
    );
    await s.openSession(1);
    expect(s.results.rows()).toEqual([resultRow({ id: 1, tokens: 300, tokensExact: false })]);
    await s.startIndex();
    await vi.advanceTimersByTimeAsync(500);
    expect(sessionResults).toHaveBeenCalledTimes(2);
    expect(s.results.rows()).toEqual([resultRow({ id: 1, tokens: 280, tokensExact: true })]);
    await vi.advanceTimersByTimeAsync(500);
    expect(sessionResults).toHaveBeenCalledTimes(3);
    expect(get(s).polling).toBe(false);
  });

  it('does not start a reload while the previous one is still in flight', async () => {
    const indexStatus = vi.fn(() => Promise.resolve(status({ running: true })));
    let first = true;
    const slow = new Promise<never>(() => {});
    const sessionResults = vi.fn((): Promise<ResultPage> => {
      if (first) {
        first = false;
        return Promise.resolve(resultsOf([resultRow()]));
      }
      return slow;
    });
    const listSessions = vi.fn((): Promise<SessionPage> => slow);
    const s = createSessionsStore(fakeBridge({ startIndex: () => Promise.resolve(status({ running: true })), indexStatus, sessionResults, listSessions }));
    await s.openSession(1);
    await s.startIndex();
    await vi.advanceTimersByTimeAsync(2000);
    expect(indexStatus).toHaveBeenCalledTimes(4);
    expect(sessionResults).toHaveBeenCalledTimes(2);
    expect(listSessions).toHaveBeenCalledTimes(1); // no list yet: its first reload is still on its way
    s.destroy();
  });

  it('stops polling and keeps the error when a status call fails', async () => {
    const indexStatus = vi.fn(() => Promise.reject(new Error('db locked')));
    const s = createSessionsStore(
      fakeBridge({ startIndex: () => Promise.resolve(status({ running: true })), indexStatus, listSessions: () => Promise.resolve(sessionsOf([])) }),
    );
    await s.startIndex();
    await vi.advanceTimersByTimeAsync(500);
    expect(get(s).polling).toBe(false);
    expect(get(s).indexError).toEqual({ code: 'failed', params: {}, message: 'db locked', notWired: false });
    await vi.advanceTimersByTimeAsync(3000);
    expect(indexStatus).toHaveBeenCalledTimes(1);
  });

  it('reports a start failure, and marks "not wired yet" so the screen can translate it', async () => {
    const s = createSessionsStore(fakeBridge({ startIndex: () => Promise.reject(new Error('app: not wired yet')) }));
    await s.startIndex();
    expect(get(s).indexError).toEqual({ code: 'failed', params: {}, message: 'app: not wired yet', notWired: true });
    expect(get(s).polling).toBe(false);
  });

  it('resumes polling on init when a pass is already running, and destroy stops it', async () => {
    const indexStatus = vi.fn(() => Promise.resolve(status({ running: true })));
    const s = createSessionsStore(fakeBridge({ indexStatus, listSessions: () => Promise.resolve(sessionsOf([])) }));
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
      fakeBridge({ startIndex: () => Promise.resolve(status({ running: false })), indexStatus, listSessions: () => Promise.resolve(sessionsOf([])) }),
    );
    await s.startIndex();
    await vi.advanceTimersByTimeAsync(2000);
    expect(indexStatus).not.toHaveBeenCalled();
    expect(get(s.list).total).toBe(0);
  });
});

describe('sessions store: list and filters', () => {
  it('passes the harness filter and the page to Go and learns harness names from rows', async () => {
    const listSessions = vi.fn((q: Partial<SessionQuery>) => Promise.resolve(sessionsOf(q.harness === 'future-harness' ? [] : [session({ harness: 'future-harness' })])));
    const s = createSessionsStore(fakeBridge({ listSessions, indexStatus: () => Promise.resolve(status()) }), { pageSize: 50 });
    await s.init();
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
