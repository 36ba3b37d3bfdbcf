// The first page of the largest results, asked for by public/firstpage.js
// while the page's head was parsed: the bridge takes it once, during the
// start only (after the first paint it is dropped, as it may be stale).
import type { ResultPage } from '../bridge';

interface Prefetch {
  offset: number;
  limit: number;
  value: ResultPage | null;
  error: unknown;
  promise: Promise<ResultPage>;
}

const slot = globalThis as { __spillscopeFirstPage?: Prefetch };

function matching(offset: number, limit: number): Prefetch | undefined {
  const p = slot.__spillscopeFirstPage;
  return p && p.offset === offset && p.limit === limit ? p : undefined;
}

/** firstPageNow is the prefetched page for (offset, limit) when Go has already answered it, taken once; undefined otherwise. */
export function firstPageNow(offset: number, limit: number): ResultPage | undefined {
  const p = matching(offset, limit);
  if (!p?.value) return undefined;
  delete slot.__spillscopeFirstPage;
  return p.value;
}

/** firstPageOnItsWay is the prefetched page's answer for (offset, limit) while Go works on it (or has answered), taken once. */
export function firstPageOnItsWay(offset: number, limit: number): Promise<ResultPage> | undefined {
  const p = matching(offset, limit);
  if (!p) return undefined;
  delete slot.__spillscopeFirstPage;
  return p.promise;
}

/** dropFirstPage forgets a prefetched page no screen took. */
export function dropFirstPage(): void {
  delete slot.__spillscopeFirstPage;
}
