import { describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createAppStore } from './app';
import type { Bridge } from '../bridge';

const unset = () => Promise.reject(new Error('not set'));

function bridgeWith(over: Partial<Bridge>): Bridge {
  return {
    info: unset,
    getSettings: () => Promise.resolve({ language: 'en' }),
    setLanguage: (l) => Promise.resolve({ language: l }),
    listSessions: unset,
    sessionResults: unset,
    result: unset,
    diagnostics: unset,
    startIndex: unset,
    indexStatus: unset,
    readFile: unset,
    searchResults: unset,
    routes: unset,
    retain: unset,
    sweep: unset,
    listLinks: unset,
    checkLink: unset,
    ...over,
  };
}

describe('app store', () => {
  it('goes from loading to ready with what Go returned', async () => {
    const info = { version: '9.9.9', platform: 'linux/amd64', dataDir: '/d', roots: [] };
    const s = createAppStore(bridgeWith({ info: () => Promise.resolve(info as any) }));
    expect(get(s).state).toBe('loading');
    await s.load();
    expect(get(s)).toEqual({ state: 'ready', value: info });
  });
  it('keeps the error text when Go rejects', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const s = createAppStore(bridgeWith({ info: () => Promise.reject(new Error('boom')) }));
    await s.load();
    expect(get(s)).toEqual({ state: 'error', error: 'boom' });
    spy.mockRestore();
  });
});
