import type { Bridge, ResultPage, ResultRow } from '../bridge';
import { createPagedList, type PagedList, type PagedOptions } from './paged';

/** LargestStore is every indexed tool result, most tokens first, a page at a time. */
export type LargestStore = PagedList<ResultRow, ResultPage>;

/**
 * createLargestStore ranks the results that cost the most tokens across the
 * index. Their figures are approximations until the token phase has counted
 * them, so the screen reloads the rows on screen while an index pass runs;
 * a reload keeps them until their fresh page arrives.
 */
export function createLargestStore(b: Bridge, opts: PagedOptions<ResultPage> = {}): LargestStore {
  return createPagedList<ResultRow, ResultPage>((offset, limit) => b.largest(offset, limit), {
    what: 'largest results',
    now: b.largestNow && ((offset, limit) => b.largestNow?.(offset, limit)),
    ...opts,
  });
}
