import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, LinkPage, LinkRow } from '../bridge';
import { failure, type Failure } from './common';
import { createPagedList, type PagedList, type PagedOptions } from './paged';

export type CheckState =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'ready'; row: LinkRow }
  | { state: 'error'; error: Failure };

export interface LinksState {
  onlyHidden: boolean;
  check: CheckState;
}

export interface LinksStore extends Readable<LinksState> {
  /** rows are the links, hidden ones first, a page at a time; the page's counts cover the whole list. */
  readonly rows: PagedList<LinkRow, LinkPage>;
  /** load starts the list over (from the first page). */
  load(): Promise<void>;
  setOnlyHidden(v: boolean): Promise<void>;
  /** check classifies a URI the user typed; the store keeps only Go's verdict, not the URI. */
  check(uri: string): Promise<void>;
}

/** isHidden: a link whose URI did not reach the model. */
export function isHidden(r: LinkRow): boolean {
  return r.shown === 'stub' || r.shown === 'marker';
}

export function createLinksStore(b: Bridge, opts: PagedOptions = {}): LinksStore {
  const store = writable<LinksState>({ onlyHidden: false, check: { state: 'idle' } });
  const { subscribe, update } = store;
  let checkSeq = 0;
  const rows = createPagedList<LinkRow, LinkPage>(
    (offset, limit) => b.listLinks({ onlyHidden: get(store).onlyHidden, offset, limit }),
    { what: 'list links', ...opts },
  );
  const load = () => rows.reset();
  return {
    subscribe,
    rows,
    load,
    async setOnlyHidden(v) {
      update((s) => ({ ...s, onlyHidden: v }));
      await load();
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
