import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, Diagnostic, IndexChange, IndexStatus, LiveStatus, ResultPage, ResultRow, SessionPage, SessionRow, Unsubscribe } from '../bridge';
import { failure, type Failure } from './common';
import { createPagedList, type PagedList } from './paged';

/** Known harness names; the filter also offers any other name the index returns. */
export const knownHarnesses = ['claude-code', 'codex', 'gemini-cli', 'dsh', 'opencode', 'copilot-cli', 'goose', 'spillscope'];

export type List<T> = { state: 'idle' } | { state: 'loading'; value?: T } | { state: 'ready'; value: T } | { state: 'error'; error: Failure; value?: T };

export interface SessionsState {
  status: IndexStatus | null;
  /** live is what the watcher of the session folders is doing (null until Go answers). */
  live: LiveStatus | null;
  /** pushed is false where Go's events cannot reach the page (no Wails runtime): the store then asks for the status every few seconds. */
  pushed: boolean;
  /** changes counts the changes Go reported; a screen that shows indexed rows reloads them when it moves. */
  changes: number;
  /** openChanges counts the changes Go reported to the open session; its other views (the timeline) reload when it moves. */
  openChanges: number;
  indexError: Failure | null;
  harness: string;
  search: string;
  /** order is "" (newest first) or "tokens" (most tokens first; exact once the token phase has counted). */
  order: SessionOrder;
  harnesses: string[];
  /** sessionId is the open session; results lists its tool results. */
  sessionId: number;
  /** resultsOrder is "" (file order) or "tokens". */
  resultsOrder: SessionOrder;
  /** onlyNotices keeps the open session's results with a spill notice. */
  onlyNotices: boolean;
  diagnostics: List<Diagnostic[]>;
}

export type SessionOrder = '' | 'tokens';

export interface SessionsOptions {
  /** fallbackMs is how often the status is asked for where no event reaches the page (5 s). */
  fallbackMs?: number;
  searchDebounceMs?: number;
  pageSize?: number;
}

export interface SessionsStore extends Readable<SessionsState> {
  /** list is the sessions list, a page at a time; its counts say how many sessions and transcripts match. */
  readonly list: PagedList<SessionRow, SessionPage>;
  /** results are the open session's tool results, a page at a time. */
  readonly results: PagedList<ResultRow, ResultPage>;
  /** init subscribes to what Go pushes (index changes, a pass's progress, the live watcher) and loads the status and the live state; the list waits for showList. */
  init(): Promise<void>;
  /** showList says the list is on screen: the first time its first page is asked for, then the pages on screen reload; until then index changes do not reload it. */
  showList(): Promise<void>;
  startIndex(): Promise<void>;
  /** setLivePaused pauses or resumes live indexing. */
  setLivePaused(paused: boolean): Promise<void>;
  refresh(): Promise<void>;
  setHarness(h: string): Promise<void>;
  setOrder(o: SessionOrder): Promise<void>;
  /** setSearch waits for typing to pause before asking Go. */
  setSearch(q: string): void;
  openSession(id: number): Promise<void>;
  setResultsOrder(o: SessionOrder): Promise<void>;
  setOnlyNotices(v: boolean): Promise<void>;
  closeSession(): void;
  loadDiagnostics(limit?: number): Promise<void>;
  /** destroy ends the subscriptions and pending timers (the screen unmounted). */
  destroy(): void;
}

export function createSessionsStore(b: Bridge, opts: SessionsOptions = {}): SessionsStore {
  const fallbackMs = opts.fallbackMs ?? 5000;
  const searchMs = opts.searchDebounceMs ?? 200;
  const store = writable<SessionsState>({
    status: null,
    live: null,
    pushed: true,
    changes: 0,
    openChanges: 0,
    indexError: null,
    harness: '',
    search: '',
    order: '',
    harnesses: [...knownHarnesses],
    sessionId: 0,
    resultsOrder: '',
    onlyNotices: false,
    diagnostics: { state: 'idle' },
  });
  const { subscribe, update } = store;
  let fallbackTimer: ReturnType<typeof setTimeout> | null = null;
  let searchTimer: ReturnType<typeof setTimeout> | null = null;
  let destroyed = false;
  // listShown: a screen has shown the sessions list (showList), so index
  // changes reload it.
  let listShown = false;
  let offs: Unsubscribe[] = [];
  let subscribed: Promise<void> | null = null;

  const list = createPagedList<SessionRow, SessionPage>(
    async (offset, limit) => {
      const { harness, search, order } = get(store);
      const page = await b.listSessions({ harness, search, order, offset, limit });
      // The filter offers every harness the index holds.
      const names = new Set(get(store).harnesses);
      const before = names.size;
      for (const r of page.rows ?? []) if (r.harness) names.add(r.harness);
      if (names.size !== before) update((s) => ({ ...s, harnesses: [...names] }));
      return page;
    },
    { pageSize: opts.pageSize, what: 'list sessions' },
  );

  const results = createPagedList<ResultRow, ResultPage>(
    (offset, limit) => {
      const { sessionId, resultsOrder, onlyNotices } = get(store);
      return b.sessionResults({ sessionId, order: resultsOrder, onlyNotices, offset, limit });
    },
    { pageSize: opts.pageSize, what: 'session results' },
  );

  /** applyStatus keeps the newest status: Go numbers each one it pushes, and an answer that left before a push is older. */
  function applyStatus(st: IndexStatus) {
    update((s) => (s.status && (st.seq ?? 0) < (s.status.seq ?? 0) ? s : { ...s, status: st }));
  }

  /** changed reloads what shows indexed rows: the list's pages on screen, the open session's when it is named, and (through changes) the other screens'. */
  function changed(c: IndexChange) {
    if (destroyed) return;
    applyStatus(c.status);
    update((s) => ({ ...s, changes: s.changes + 1 }));
    if (listShown) void list.reload();
    const open = get(store).sessionId;
    if (open && (c.all || c.sessions.includes(open))) {
      update((s) => ({ ...s, openChanges: s.openChanges + 1 }));
      void results.reload();
    }
  }

  function subscribeAll(): Promise<void> {
    subscribed ??= (async () => {
      const got = await Promise.all([
        b.on('index:changed', changed),
        b.on('index:progress', (st) => !destroyed && applyStatus(st)),
        b.on('live:status', (live) => !destroyed && update((s) => ({ ...s, live }))),
      ]);
      offs = got.filter((o): o is Unsubscribe => !!o);
      if (got.some((o) => !o)) {
        // No event reaches this page: a slow poll stands in.
        update((s) => ({ ...s, pushed: false }));
        scheduleFallback();
      }
    })();
    return subscribed;
  }

  function scheduleFallback() {
    if (destroyed || fallbackTimer) return;
    fallbackTimer = setTimeout(fallback, fallbackMs);
  }

  /** fallback asks for the status and reloads only if it moved: a pass ran, or the index changed. */
  async function fallback() {
    fallbackTimer = null;
    try {
      const st = await b.indexStatus();
      if (destroyed) return;
      const was = get(store).status;
      const moved =
        !was ||
        was.running !== st.running ||
        was.filesDone !== st.filesDone ||
        was.phase !== st.phase ||
        was.lastIndexedAt !== st.lastIndexedAt ||
        was.toolResults !== st.toolResults ||
        was.sessions !== st.sessions;
      if (moved) changed({ sessions: [], results: [], all: true, status: st });
    } catch (e) {
      console.error('spillscope: index status failed:', e);
    }
    scheduleFallback();
  }

  return {
    subscribe,
    list,
    results,
    async init() {
      destroyed = false;
      // Subscribed before the status is asked for, so no change falls
      // between the two.
      await subscribeAll();
      try {
        applyStatus(await b.indexStatus());
      } catch (e) {
        update((s) => ({ ...s, indexError: failure(e) }));
      }
      void b.live().then(
        (live) => update((s) => ({ ...s, live: s.live ?? live })),
        (e) => console.error('spillscope: live status failed:', e),
      );
    },
    showList() {
      // The window opens on the largest results for a new user: the
      // sessions list (10,000 sessions summed by Go) is not asked for
      // until a screen shows it, so it never competes with the first rows.
      if (listShown) return list.reload();
      listShown = true;
      return list.reset();
    },
    async startIndex() {
      update((s) => ({ ...s, indexError: null }));
      await subscribeAll();
      try {
        // Its progress and its end arrive as events.
        applyStatus(await b.startIndex());
      } catch (e) {
        console.error('spillscope: start index failed:', e);
        update((s) => ({ ...s, indexError: failure(e) }));
      }
    },
    async setLivePaused(paused) {
      try {
        const live = await b.setLivePaused(paused);
        update((s) => ({ ...s, live }));
      } catch (e) {
        console.error('spillscope: pause failed:', e);
        update((s) => ({ ...s, indexError: failure(e) }));
      }
    },
    refresh: () => list.reset(),
    async setHarness(h) {
      update((s) => ({ ...s, harness: h }));
      await list.reset();
    },
    async setOrder(o) {
      update((s) => ({ ...s, order: o }));
      await list.reset();
    },
    setSearch(q) {
      update((s) => ({ ...s, search: q }));
      if (searchTimer) clearTimeout(searchTimer);
      searchTimer = setTimeout(() => {
        searchTimer = null;
        void list.reset();
      }, searchMs);
    },
    async openSession(id) {
      // Another session's rows never show under this one's header: they
      // are dropped before its first page is asked for. The same session
      // again keeps its rows and refreshes them.
      if (get(store).sessionId === id) return results.reload();
      update((s) => ({ ...s, sessionId: id }));
      await results.reset();
    },
    async setResultsOrder(o) {
      update((s) => ({ ...s, resultsOrder: o }));
      if (get(store).sessionId) await results.reset();
    },
    async setOnlyNotices(v) {
      update((s) => ({ ...s, onlyNotices: v }));
      if (get(store).sessionId) await results.reset();
    },
    closeSession() {
      update((s) => ({ ...s, sessionId: 0 }));
      results.clear();
    },
    async loadDiagnostics(limit = 200) {
      update((s) => ({ ...s, diagnostics: { state: 'loading' } }));
      try {
        const rows = (await b.diagnostics(limit)) ?? [];
        update((s) => ({ ...s, diagnostics: { state: 'ready', value: rows } }));
      } catch (e) {
        update((s) => ({ ...s, diagnostics: { state: 'error', error: failure(e) } }));
      }
    },
    destroy() {
      destroyed = true;
      for (const off of offs) off();
      offs = [];
      subscribed = null;
      if (fallbackTimer) clearTimeout(fallbackTimer);
      if (searchTimer) clearTimeout(searchTimer);
      fallbackTimer = searchTimer = null;
    },
  };
}
