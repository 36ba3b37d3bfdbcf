import { describe, expect, it } from 'vitest';
import { logAxis, logTicks } from './logscale';

describe('log axis', () => {
  it('puts equal ratios at equal distances, ends inside the range', () => {
    const ax = logAxis([1000, 10000, 100000], 0, 100);
    const a = ax.at(1000);
    const b = ax.at(10000);
    const c = ax.at(100000);
    expect(b - a).toBeCloseTo(c - b, 6);
    expect(a).toBeGreaterThan(0);
    expect(c).toBeLessThan(100);
    expect(ax.at(3162.28)).toBeCloseTo((a + b) / 2, 1);
  });

  it('places a budget where its value says, not by its index', () => {
    const ax = logAxis([2000, 5000, 12500, 25000, 50000], 0, 700);
    // 2000 -> 5000 is a ratio of 2.5, 25000 -> 50000 only 2: the gaps differ.
    expect(ax.at(5000) - ax.at(2000)).toBeGreaterThan(ax.at(50000) - ax.at(25000));
  });

  it('draws a budget of 0 at 1 and widens a single value to a decade', () => {
    const ax = logAxis([0, 100], 0, 10);
    expect(ax.at(0)).toBe(ax.at(1));
    const one = logAxis([12500], 0, 10);
    expect(one.lo).toBeLessThan(12500);
    expect(one.hi).toBeGreaterThan(12500);
    expect(one.at(12500)).toBeCloseTo(5, 6);
  });

  it('says whether a value (a recorded budget) is on the axis', () => {
    const ax = logAxis([2000, 50000], 0, 10);
    expect(ax.contains(12500)).toBe(true);
    expect(ax.contains(500000)).toBe(false);
  });
});

describe('log ticks', () => {
  it('labels powers of ten and their 2s and 5s in a short range', () => {
    expect(logTicks(900, 60000)).toEqual([1000, 2000, 5000, 10000, 20000, 50000]);
  });

  it('thins out over many decades', () => {
    const t = logTicks(1, 1e9);
    expect(t.length).toBeLessThanOrEqual(8);
    expect(t[0]).toBe(1);
    expect(t).toContain(1e6);
  });
});
