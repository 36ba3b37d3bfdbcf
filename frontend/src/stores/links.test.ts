import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createLinksStore, isHidden, query } from './links';
import { fakeBridge, page } from '../test/fakeBridge';
import type { LinkPage, LinkQuery, LinkRow } from '../bridge';

beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));
afterEach(() => vi.restoreAllMocks());

const link = (over: Partial<LinkRow>): LinkRow => ({
  resultId: 1, sessionId: 1, block: 0, shown: 'stub', line: '', reason: 'credential-parameter', parameter: 'X-Amz-Signature',
  inText: false, class: 'stubbed', host: 'b.example', families: ['aws'], tool: 'WebFetch', project: '/p', file: '/f.jsonl', sourceLine: 3, uri: '', start: -1, end: -1,
  ...over,
});

describe('links store', () => {
  it('loads links a page at a time, with the whole list’s counts, and filters to flagged ones through Go', async () => {
    const all = [link({}), link({ shown: 'line', reason: '' }), link({ shown: 'text', inText: true, reason: '' })];
    const listLinks = vi.fn((q: Partial<LinkQuery>) => {
      const rows = q.onlyHidden ? all.filter((l) => l.reason) : all;
      return Promise.resolve({ ...page(rows, q.offset ?? 0, q.limit ?? 0), hidden: 1, inText: q.onlyHidden ? 0 : 1 } as LinkPage);
    });
    const s = createLinksStore(fakeBridge({ listLinks }), { pageSize: 2 });
    await s.load();
    expect(listLinks).toHaveBeenLastCalledWith({ onlyHidden: false, offset: 0, limit: 2 });
    expect(get(s.rows)).toMatchObject({ total: 3, last: { total: 3, hidden: 1, inText: 1 } });
    s.rows.view(2, 2);
    await vi.waitFor(() => expect(s.rows.row(2)?.inText).toBe(true));
    await s.setOnlyHidden(true);
    expect(listLinks).toHaveBeenLastCalledWith({ onlyHidden: true, offset: 0, limit: 2 });
    expect(get(s.rows).total).toBe(1);
  });

  it('filters by family, reason, host and class through Go, and an export asks for the same filters', async () => {
    const listLinks = vi.fn((q: Partial<LinkQuery>) => Promise.resolve({ ...page([link({})], q.offset ?? 0, q.limit ?? 0), hidden: 1, inText: 0 } as LinkPage));
    const s = createLinksStore(fakeBridge({ listLinks }), { pageSize: 5 });
    await s.load();
    await s.setFilters({ family: 'aws', host: ' s3.amazonaws.com ' });
    expect(listLinks).toHaveBeenLastCalledWith({ onlyHidden: false, family: 'aws', host: 's3.amazonaws.com', offset: 0, limit: 5 });
    await s.setFilters({ reason: 'userinfo', class: 'redacted', family: '' });
    expect(listLinks).toHaveBeenLastCalledWith({ onlyHidden: false, reason: 'userinfo', host: 's3.amazonaws.com', class: 'redacted', offset: 0, limit: 5 });
    expect(s.filters()).toEqual({ onlyHidden: false, reason: 'userinfo', family: '', host: 's3.amazonaws.com', class: 'redacted' });
    expect(query(s.filters())).toEqual({ onlyHidden: false, reason: 'userinfo', host: 's3.amazonaws.com', class: 'redacted' });
  });

  it('loads the filter menus, and keeps the list when they fail', async () => {
    const facets = { reasons: [{ value: 'userinfo', count: 2 }], families: [{ value: 'aws', count: 3 }], hosts: [] };
    const s = createLinksStore(fakeBridge({ linkFacets: () => Promise.resolve(facets as never) }));
    await s.loadFacets();
    expect(get(s).facets).toEqual(facets);
    const f = createLinksStore(fakeBridge({ linkFacets: () => Promise.reject(new Error('x')) }));
    await f.loadFacets();
    expect(get(f).facets).toBeNull();
  });

  it('tells hidden from shown links', () => {
    expect(isHidden(link({ shown: 'stub' }))).toBe(true);
    expect(isHidden(link({ shown: 'marker' }))).toBe(true);
    expect(isHidden(link({ shown: 'line' }))).toBe(false);
    expect(isHidden(link({ shown: 'text', inText: true }))).toBe(false);
  });

  it('checks a URI and keeps only the verdict', async () => {
    const verdict = link({ resultId: 0, line: '' });
    const checkLink = vi.fn(() => Promise.resolve(verdict));
    const s = createLinksStore(fakeBridge({ checkLink }));
    await s.check('  https://b.s3.amazonaws.com/k?X-Amz-Signature=abc  ');
    expect(checkLink).toHaveBeenCalledWith('https://b.s3.amazonaws.com/k?X-Amz-Signature=abc');
    expect(get(s).check).toEqual({ state: 'ready', row: verdict });
    expect(JSON.stringify(get(s))).not.toContain('X-Amz-Signature=abc');
  });

  it('an empty check box clears the verdict without calling Go', async () => {
    const checkLink = vi.fn();
    const s = createLinksStore(fakeBridge({ checkLink }));
    await s.check('   ');
    expect(checkLink).not.toHaveBeenCalled();
    expect(get(s).check).toEqual({ state: 'idle' });
  });

  it('keeps errors of the list and of the check', async () => {
    const s = createLinksStore(
      fakeBridge({ listLinks: () => Promise.reject(new Error('no index')), checkLink: () => Promise.reject(new Error('too long')) }),
    );
    await s.load();
    expect(get(s.rows).error).toMatchObject({ code: 'failed', message: 'no index', notWired: false });
    await s.check('x');
    expect(get(s).check).toMatchObject({ state: 'error', error: { code: 'failed', message: 'too long' } });
  });
});
