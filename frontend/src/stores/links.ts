import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, LinkFacets, LinkPage, LinkQuery, LinkRow } from '../bridge';
import { failure, type Failure } from './common';
import { createPagedList, type PagedList, type PagedOptions } from './paged';

export type CheckState =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'ready'; row: LinkRow }
  | { state: 'error'; error: Failure };

/** LinkFilters narrow the list in Go (paged and counted there): each is optional. */
export interface LinkFilters {
  onlyHidden: boolean;
  /** reason is a reason code; family a credential family key; host a host (its subdomains too); class plain, redacted, stubbed or marker. */
  reason: string;
  family: string;
  host: string;
  class: string;
}

export const NO_FILTERS: LinkFilters = { onlyHidden: false, reason: '', family: '', host: '', class: '' };

export interface LinksState extends LinkFilters {
  check: CheckState;
  /** facets are the values the filters offer, with counts over every link (null until loaded). */
  facets: LinkFacets | null;
}

export interface LinksStore extends Readable<LinksState> {
  /** rows are the links, hidden ones first, a page at a time; the page's counts cover the whole list. */
  readonly rows: PagedList<LinkRow, LinkPage>;
  /** load starts the list over (from the first page). */
  load(): Promise<void>;
  setOnlyHidden(v: boolean): Promise<void>;
  /** setFilters changes some filters and starts the list over. */
  setFilters(f: Partial<LinkFilters>): Promise<void>;
  /** filters is the query the list is read with (what an export of it asks for). */
  filters(): LinkFilters;
  /** loadFacets reads the filter menus' values. */
  loadFacets(): Promise<void>;
  /** check classifies a URI the user typed; the store keeps only Go's verdict, not the URI. */
  check(uri: string): Promise<void>;
}

/** isHidden: a link whose URI did not reach the model. */
export function isHidden(r: LinkRow): boolean {
  return r.shown === 'stub' || r.shown === 'marker';
}

export function createLinksStore(b: Bridge, opts: PagedOptions = {}): LinksStore {
  const store = writable<LinksState>({ ...NO_FILTERS, check: { state: 'idle' }, facets: null });
  const { subscribe, update } = store;
  let checkSeq = 0;
  const filters = (): LinkFilters => {
    const { onlyHidden, reason, family, host, class: cls } = get(store);
    return { onlyHidden, reason, family, host: host.trim(), class: cls };
  };
  const rows = createPagedList<LinkRow, LinkPage>((offset, limit) => b.listLinks({ ...query(filters()), offset, limit }), {
    what: 'list links',
    ...opts,
  });
  const load = () => rows.reset();
  return {
    subscribe,
    rows,
    load,
    async setOnlyHidden(v) {
      update((s) => ({ ...s, onlyHidden: v }));
      await load();
    },
    async setFilters(f) {
      update((s) => ({ ...s, ...f }));
      await load();
    },
    filters,
    async loadFacets() {
      try {
        const facets = await b.linkFacets(0);
        update((s) => ({ ...s, facets }));
      } catch (e) {
        // The menus then offer no values; the list itself still filters.
        console.error('spillscope: link facets failed:', e);
      }
    },
    async check(uri) {
      const mine = ++checkSeq;
      if (uri.trim() === '') {
        update((s) => ({ ...s, check: { state: 'idle' } }));
        return;
      }
      update((s) => ({ ...s, check: { state: 'loading' } }));
      try {
        const row = await b.checkLink(uri.trim());
        if (mine !== checkSeq) return;
        update((s) => ({ ...s, check: { state: 'ready', row } }));
      } catch (e) {
        if (mine !== checkSeq) return;
        update((s) => ({ ...s, check: { state: 'error', error: failure(e) } }));
      }
    },
  };
}

/** query is the filters as Go's LinkQuery takes them (empty ones left out). */
export function query(f: LinkFilters): Partial<LinkQuery> {
  const q: Partial<LinkQuery> = { onlyHidden: f.onlyHidden };
  if (f.reason) q.reason = f.reason;
  if (f.family) q.family = f.family;
  if (f.host) q.host = f.host;
  if (f.class) q.class = f.class;
  return q;
}
