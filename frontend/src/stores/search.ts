import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, ResultPage, ResultRow } from '../bridge';
import { createPagedList, type PagedList, type PagedOptions } from './paged';

export interface SearchState {
  /** query is what was searched last (the box itself is the component's). */
  query: string;
  /** order is "" (relevance), "tokens" (most tokens first, exact once counted) or "source". */
  order: SearchOrder;
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
  const state = writable<SearchState>({ query: '', order: '' });
  const hits = createPagedList<ResultRow, ResultPage>(
    (offset, limit) => {
      const { query, order } = get(state);
      return b.searchResults({ query, order, offset, limit });
    },
    { what: 'search', ...opts },
  );
  async function run(query: string, order: SearchOrder) {
    const q = query.trim();
    state.set({ query: q, order });
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
