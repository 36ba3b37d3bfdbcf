import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, ResultPage, ResultRow, Snippet } from '../bridge';
import { createPagedList, type PagedList, type PagedOptions } from './paged';

export interface SearchState {
  /** query is what was searched last (the box itself is the component's). */
  query: string;
  /** order is "" (relevance), "tokens" (most tokens first, exact once counted) or "source". */
  order: SearchOrder;
  /** snippets: a few masked words around the match, by result id, filled in as each page of hits arrives. */
  snippets: Record<number, Snippet>;
}

export type SearchOrder = '' | 'tokens' | 'source';

export interface SearchStore extends Readable<SearchState> {
  /** hits are every match of the last search, a page at a time; their count is the whole list's. */
  readonly hits: PagedList<ResultRow, ResultPage>;
  /** search asks the full-text index; an empty query clears the list without a call. */
  search(query: string): Promise<void>;
  /** setOrder re-runs the last search in the new order. */
  setOrder(order: SearchOrder): Promise<void>;
}

/** createSearchStore keeps the last full-text search; an answer to an older one never replaces a newer one. */
export function createSearchStore(b: Bridge, opts: PagedOptions = {}): SearchStore {
  const state = writable<SearchState>({ query: '', order: '', snippets: {} });
  // generation tells a page's snippets from those of a search since replaced.
  let generation = 0;
  const hits = createPagedList<ResultRow, ResultPage>(
    async (offset, limit) => {
      const mine = generation;
      const { query, order } = get(state);
      const page = await b.searchResults({ query, order, offset, limit });
      if (page?.rows?.length) void loadSnippets(mine, query, page.rows);
      return page;
    },
    { what: 'search', ...opts },
  );
  async function loadSnippets(mine: number, q: string, rows: ResultRow[]) {
    try {
      const got = (await b.snippets(q, rows.map((r) => r.id))) ?? [];
      if (mine !== generation) return;
      state.update((s) => {
        const snippets = { ...s.snippets };
        for (const sn of got) snippets[sn.id] = sn;
        return { ...s, snippets };
      });
    } catch (e) {
      // A missing snippet costs only the preview line; the query is not logged.
      console.error('spillscope: snippets failed:', e instanceof Error ? e.name : 'error');
    }
  }
  async function run(query: string, order: SearchOrder) {
    generation++;
    const q = query.trim();
    state.set({ query: q, order, snippets: {} });
    if (!q) {
      hits.clear();
      return;
    }
    await hits.reset();
  }
  return {
    subscribe: state.subscribe,
    hits,
    search: (query) => run(query, get(state).order),
    setOrder: (order) => run(get(state).query, order),
  };
}
