import { get, writable, type Readable } from 'svelte/store';
import { failure, type Failure } from './common';

/** Page is what Go answers for one page of a list: its rows and the whole list's length (and, per list, more counts). */
export interface Page<T> {
  rows: T[];
  total: number;
}

/** Fetch asks Go for limit rows from offset. */
export type Fetch<T, P extends Page<T>> = (offset: number, limit: number) => Promise<P>;

export interface PagedState<P> {
  /** total is the whole list's length, -1 until the first page answers. */
  total: number;
  /** last is the latest page's answer without its rows: the list's other counts (sessions, flagged links). */
  last: Omit<P, 'rows'> | null;
  /** loading: a page the screen waits for is on its way. */
  loading: boolean;
  error: Failure | null;
  /** version changes whenever a row changes, so a screen re-reads row(i). */
  version: number;
}

export interface PagedList<T, P extends Page<T> = Page<T>> extends Readable<PagedState<P>> {
  /** row is the i-th row of the list, undefined until its page arrives. */
  row(i: number): T | undefined;
  /** rows lists the rows loaded so far, in list order (gaps left out). */
  rows(): T[];
  /** view says which rows are on screen; pages not loaded yet are asked for. */
  view(first: number, last: number): void;
  /** reset starts the list over (another filter or order): rows are dropped, the first page is asked for. */
  reset(): Promise<void>;
  /** reload asks again for the pages on screen and forgets the others (figures changed during an index pass); rows stay until their new page arrives. */
  reload(): Promise<void>;
  /** hold keeps reloads waiting while the pointer or focus is on the list, so no row moves under a click; release runs one if any was asked for. */
  hold(): void;
  release(): void;
  /** clear empties the list without asking Go (nothing to list). */
  clear(): void;
}

export interface PagedOptions<P = never> {
  /** pageSize rows are asked for at once. */
  pageSize?: number;
  /** what names the list in the log. */
  what?: string;
  /** now gives a page already in hand (offset, limit), which load takes at once instead of asking Go. */
  now?: (offset: number, limit: number) => P | undefined;
}

/** PAGE_SIZE is how many rows one call to Go brings: a few screens' worth. */
export const PAGE_SIZE = 200;

/**
 * createPagedList keeps a long list as the pages a screen has looked at: the
 * virtualised table says which rows are on screen, the list asks Go for
 * their pages and no more, so every row can be reached and none is held
 * that was never shown. Answers to an older query never land in a newer
 * one.
 */
export function createPagedList<T, P extends Page<T> = Page<T>>(fetch: Fetch<T, P>, opts: PagedOptions<P> = {}): PagedList<T, P> {
  const size = opts.pageSize ?? PAGE_SIZE;
  const what = opts.what ?? 'list';
  const state = writable<PagedState<P>>({ total: -1, last: null, loading: false, error: null, version: 0 });
  let pages = new Map<number, T[]>();
  const inflight = new Map<number, Promise<void>>();
  let generation = 0;
  let first = 0;
  let last = 0;
  let held = false;
  let missed = false;

  const bump = (over: Partial<PagedState<P>>) => state.update((s) => ({ ...s, ...over, version: s.version + 1 }));

  function visiblePages(): number[] {
    const total = get(state).total;
    const end = total >= 0 ? Math.min(last, total - 1) : last;
    const out: number[] = [];
    for (let p = Math.floor(first / size); p <= Math.floor(Math.max(end, first) / size); p++) out.push(p);
    return out;
  }

  /** take puts a page's answer in the list. */
  function take(page: number, answer: P) {
    const { rows, ...rest } = answer;
    pages.set(page, rows ?? []);
    // A shorter list (rows removed while indexing) drops pages past its end.
    for (const k of pages.keys()) if (k * size >= answer.total && k !== 0) pages.delete(k);
    bump({ total: answer.total, last: rest as Omit<P, 'rows'>, error: null });
  }

  function load(page: number): Promise<void> {
    const gen = generation;
    const key = page;
    const running = inflight.get(key);
    if (running) return running;
    // A page in hand lands before the caller returns: the screen draws its
    // rows in the same task, with no round trip and no frame between.
    const inHand = opts.now?.(page * size, size);
    if (inHand) {
      take(page, inHand);
      return Promise.resolve();
    }
    state.update((s) => ({ ...s, loading: true }));
    // eslint-disable-next-line prefer-const
    let p!: Promise<void>;
    p = (async () => {
      try {
        const answer = await fetch(page * size, size);
        if (gen !== generation) return;
        take(page, answer);
      } catch (e) {
        if (gen !== generation) return;
        console.error(`spillscope: ${what} failed:`, e);
        bump({ error: failure(e) });
      } finally {
        if (inflight.get(key) === p) inflight.delete(key);
        if (gen === generation && inflight.size === 0) state.update((s) => ({ ...s, loading: false }));
      }
    })();
    inflight.set(key, p);
    return p;
  }

  // One reload at a time: a reload asked for while one runs waits and runs
  // once after it (index polls come faster than a slow page).
  let reloading: Promise<void> | null = null;
  let again = false;

  function reload(): Promise<void> {
    if (held) {
      missed = true;
      return Promise.resolve();
    }
    if (reloading) {
      again = true;
      return reloading;
    }
    reloading = (async () => {
      try {
        do {
          again = false;
          await reloadOnce();
        } while (again && !held);
      } finally {
        reloading = null;
      }
    })();
    return reloading;
  }

  async function reloadOnce() {
    // Rows off screen are forgotten (their figures may have changed); the
    // ones on screen stay until their fresh page replaces them.
    const keep = new Set(visiblePages());
    for (const k of pages.keys()) if (!keep.has(k)) pages.delete(k);
    generation++;
    inflight.clear();
    if (keep.size === 0) keep.add(0);
    await Promise.all([...keep].map(load));
  }

  return {
    subscribe: state.subscribe,
    row(i) {
      return pages.get(Math.floor(i / size))?.[i % size];
    },
    rows() {
      return [...pages.keys()].sort((a, b) => a - b).flatMap((k) => pages.get(k) ?? []);
    },
    view(a, b) {
      const moved = Math.max(0, a) - first;
      first = Math.max(0, a);
      last = Math.max(first, b);
      for (const p of visiblePages()) if (!pages.has(p)) void load(p);
      // While the user scrolls (not after a jump), the page they scroll
      // into next is asked for half a page early, so fast scrolling rarely
      // meets a row still loading.
      if (moved === 0 || Math.abs(moved) > size / 2) return;
      const total = get(state).total;
      const next = moved > 0 ? Math.floor((last + size / 2) / size) : Math.floor(Math.max(0, first - size / 2) / size);
      if (total >= 0 && next * size < total && !pages.has(next)) void load(next);
    },
    async reset() {
      generation++;
      inflight.clear();
      pages = new Map();
      missed = false;
      first = last = 0;
      bump({ total: -1, last: null, error: null });
      await load(0);
    },
    reload,
    hold() {
      held = true;
    },
    release() {
      held = false;
      if (missed) {
        missed = false;
        void reload();
      }
    },
    clear() {
      generation++;
      inflight.clear();
      pages = new Map();
      missed = false;
      bump({ total: -1, last: null, error: null, loading: false });
    },
  };
}
