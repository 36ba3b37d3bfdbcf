import { afterEach, describe, expect, it } from 'vitest';
import firstPageJs from '../../public/firstpage.js?raw';
import { dropFirstPage, firstPageNow, firstPageOnItsWay } from './firstpage';
import { PAGE_SIZE } from '../stores/paged';
import type { ResultPage } from '../bridge';

const slot = globalThis as { __spillscopeFirstPage?: unknown };
const answer = { rows: [], total: 7 } as unknown as ResultPage;

function prefetch(value: ResultPage | null) {
  slot.__spillscopeFirstPage = { offset: 0, limit: 200, value, error: null, promise: Promise.resolve(answer) };
}

describe('the prefetched first page', () => {
  afterEach(() => dropFirstPage());

  it('is taken once, at once when Go has answered', () => {
    prefetch(answer);
    expect(firstPageNow(0, 50)).toBeUndefined(); // another page: not this one
    expect(firstPageNow(0, 200)).toBe(answer);
    expect(firstPageNow(0, 200)).toBeUndefined();
    expect(firstPageOnItsWay(0, 200)).toBeUndefined();
  });

  it('is a promise while Go works on it, and not taken at once', async () => {
    prefetch(null);
    expect(firstPageNow(0, 200)).toBeUndefined();
    const p = firstPageOnItsWay(0, 200);
    expect(p).toBeDefined();
    expect(await p).toBe(answer);
    expect(firstPageOnItsWay(0, 200)).toBeUndefined();
  });

  it('is gone once dropped (after the first paint it may be stale)', () => {
    prefetch(answer);
    dropFirstPage();
    expect(firstPageNow(0, 200)).toBeUndefined();
  });

  it('is asked for as the largest results ask for their first page', () => {
    // public/firstpage.js runs before the bundle and cannot import PAGE_SIZE.
    expect(firstPageJs).toMatch(new RegExp(`offset: 0, limit: ${PAGE_SIZE},`));
  });
});
