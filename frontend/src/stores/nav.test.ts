import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { createNavStore, showsResult } from './nav';
import { session } from '../test/fakeBridge';

describe('nav store', () => {
  it('opens on the largest results', () => {
    expect(get(createNavStore())).toEqual({ screen: 'largest', session: null, resultId: 0, from: 'largest', focus: null });
  });
  it('goes list -> session -> result and back up one level at a time', () => {
    const n = createNavStore();
    n.go('sessions');
    n.openSession(session({ id: 3 }));
    n.openResult(9);
    expect(get(n)).toMatchObject({ screen: 'sessions', resultId: 9, session: { id: 3 }, from: 'sessions', focus: null });
    n.back();
    expect(get(n)).toMatchObject({ resultId: 0, session: { id: 3 } });
    n.back();
    expect(get(n)).toMatchObject({ resultId: 0, session: null });
  });
  it('opens a result where its list is, and back returns to that list', () => {
    const n = createNavStore();
    n.openResult(5, null);
    expect(get(n)).toEqual({ screen: 'largest', session: null, resultId: 5, from: 'largest', focus: null });
    expect(showsResult(get(n))).toBe(true);
    n.go('sessions');
    expect(showsResult(get(n))).toBe(false); // the sessions list shows, the result waits on Largest
    n.go('largest');
    expect(showsResult(get(n))).toBe(true);
    n.back();
    expect(get(n)).toMatchObject({ screen: 'largest', resultId: 0 });
    n.go('playground');
    n.openResult(6);
    expect(get(n)).toMatchObject({ screen: 'sessions', from: 'sessions', resultId: 6 });
  });
  it('opens a result the sweep cut in place, and back returns to the cut list', () => {
    const n = createNavStore();
    n.go('sweep');
    n.openResult(7, null);
    expect(get(n)).toEqual({ screen: 'sweep', session: null, resultId: 7, from: 'sweep', focus: null });
    expect(showsResult(get(n))).toBe(true);
    n.back();
    expect(get(n)).toMatchObject({ screen: 'sweep', resultId: 0 });
  });
  it('choosing the current screen again returns to its list; other screens keep the place', () => {
    const n = createNavStore();
    n.openSession(session());
    n.openResult(9);
    n.go('sweep');
    expect(get(n)).toMatchObject({ screen: 'sweep', resultId: 9 });
    n.go('sessions');
    expect(get(n)).toMatchObject({ screen: 'sessions', resultId: 9 });
    n.go('sessions');
    expect(get(n)).toEqual({ screen: 'sessions', session: null, resultId: 0, from: 'sessions', focus: null });
  });
  it('carries the place a link was opened at, and forgets it when the result closes', () => {
    const n = createNavStore();
    n.go('links');
    n.openResult(5, null, { block: 2, start: 40, end: 90 });
    expect(get(n)).toMatchObject({ screen: 'links', from: 'links', resultId: 5, focus: { block: 2, start: 40, end: 90 } });
    n.back();
    expect(get(n)).toMatchObject({ resultId: 0, focus: null });
    n.openResult(6);
    expect(get(n).focus).toBeNull();
  });
  it('restores a saved place', () => {
    const n = createNavStore();
    n.restore({ screen: 'sessions', session: session({ id: 4 }), resultId: 8 });
    expect(get(n)).toMatchObject({ screen: 'sessions', session: { id: 4 }, resultId: 8, from: 'sessions', focus: null });
    n.restore({ screen: 'links', session: session(), resultId: 0 });
    expect(get(n)).toEqual({ screen: 'links', session: null, resultId: 0, from: 'links', focus: null });
  });
});
