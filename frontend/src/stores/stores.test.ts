import { describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createAppStore } from './app';
import { fakeBridge } from '../test/fakeBridge';

describe('app store', () => {
  it('goes from loading to ready with what Go returned', async () => {
    const info = { version: '9.9.9', platform: 'linux/amd64', dataDir: '/d', roots: [] };
    const s = createAppStore(fakeBridge({ info: () => Promise.resolve(info as any) }));
    expect(get(s).state).toBe('loading');
    await s.load();
    expect(get(s)).toEqual({ state: 'ready', value: info });
  });
  it('keeps the error text when Go rejects', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const s = createAppStore(fakeBridge({ info: () => Promise.reject(new Error('boom')) }));
    await s.load();
    expect(get(s)).toEqual({ state: 'error', error: 'boom' });
    spy.mockRestore();
  });
});
