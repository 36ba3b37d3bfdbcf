import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createLinksStore, isHidden } from './links';
import { fakeBridge } from '../test/fakeBridge';
import type { LinkRow } from '../bridge';

beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));
afterEach(() => vi.restoreAllMocks());

const link = (over: Partial<LinkRow>): LinkRow => ({
  resultId: 1, sessionId: 1, block: 0, shown: 'stub', line: '', reason: 'credential-parameter', parameter: 'X-Amz-Signature',
  inText: false, tool: 'WebFetch', project: '/p', file: '/f.jsonl', sourceLine: 3, uri: '', start: -1, end: -1, ...over,
});

describe('links store', () => {
  it('loads links and filters to hidden ones through Go', async () => {
    const listLinks = vi.fn((q: { onlyHidden?: boolean }) => Promise.resolve(q.onlyHidden ? [link({})] : [link({}), link({ shown: 'line', reason: '' })]));
    const s = createLinksStore(fakeBridge({ listLinks: listLinks as never }));
    await s.load();
    expect(listLinks).toHaveBeenLastCalledWith(expect.objectContaining({ onlyHidden: false }));
    expect(get(s).rows.state === 'ready' && get(s).rows).toBeTruthy();
    await s.setOnlyHidden(true);
    expect(listLinks).toHaveBeenLastCalledWith(expect.objectContaining({ onlyHidden: true }));
    const rows = get(s).rows;
    expect(rows.state === 'ready' ? rows.value.length : -1).toBe(1);
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
    expect(get(s).rows).toEqual({ state: 'error', error: { message: 'no index', notWired: false } });
    await s.check('x');
    expect(get(s).check).toEqual({ state: 'error', error: { message: 'too long', notWired: false } });
  });
});
