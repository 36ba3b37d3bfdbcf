import { describe, expect, it } from 'vitest';
import {
  SLIDER_MAX,
  SLIDER_STEPS,
  baseName,
  budgetToSlider,
  formatBytes,
  formatClock,
  formatCompact,
  formatCount,
  formatRate,
  formatTokens,
  niceBudget,
  parseBudget,
  parseBudgets,
  percent,
  sliderToBudget,
  splitControls,
  utf8Length,
} from './format';

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KB'],
    [1536, '1.5 KB'],
    [10 * 1024, '10 KB'],
    [26_624, '26 KB'],
    [5 * 1024 * 1024, '5 MB'],
    [3.46 * 1024 * 1024, '3.5 MB'],
    [2 ** 40, '1 TB'],
    [-1, '—'],
    [Number.NaN, '—'],
  ])('%s -> %s', (n, want) => expect(formatBytes(n)).toBe(want));
});

describe('token and count formatting', () => {
  it('groups thousands', () => {
    expect(formatCount(12500)).toBe('12,500');
    expect(formatCount(0)).toBe('0');
    expect(formatCount(null)).toBe('—');
  });
  it('reports a negative token figure as pending (null)', () => {
    expect(formatTokens(-1)).toBeNull();
    expect(formatTokens(441276)).toBe('441,276');
    expect(formatTokens(undefined)).toBe('—');
  });
  it.each([
    [0, '0'],
    [999, '999'],
    [2000, '2k'],
    [12500, '12.5k'],
    [441276, '441k'],
    [1500, '1.5k'],
    [200000, '200k'],
    [2_500_000, '2.5M'],
    [9_007_199_254, '9.01B'],
    [4_000_000_000_000, '4T'],
    [9_007_199_254_740_991, '9.01e+15'],
  ])('compact %s -> %s', (n, want) => expect(formatCompact(n)).toBe(want));
  it('formats a moment as a clock today, as a date before', () => {
    const at = new Date(2026, 2, 1, 9, 5, 7).getTime();
    expect(formatClock(at, new Date(2026, 2, 1, 23, 0, 0).getTime())).toBe('09:05:07');
    expect(formatClock(at, new Date(2026, 2, 2, 0, 1, 0).getTime())).toBe('2026-03-01 09:05');
  });
  it('formats rates and percentages', () => {
    expect(formatRate(12.345)).toBe('12.3 MB/s');
    expect(formatRate(-1)).toBe('—');
    expect(percent(5, 10)).toBe(50);
    expect(percent(20, 10)).toBe(100);
    expect(percent(1, 0)).toBe(0);
  });
  it('counts UTF-8 bytes, not UTF-16 units', () => {
    expect(utf8Length('abc')).toBe(3);
    expect(utf8Length('索引')).toBe(6);
    expect(utf8Length('😀')).toBe(4);
  });
});

describe('log-scale slider', () => {
  it('maps the ends exactly', () => {
    expect(sliderToBudget(0)).toBe(0);
    expect(sliderToBudget(SLIDER_STEPS)).toBe(SLIDER_MAX);
    expect(budgetToSlider(0)).toBe(0);
    expect(budgetToSlider(SLIDER_MAX)).toBe(SLIDER_STEPS);
  });
  it('clamps out-of-range input', () => {
    expect(sliderToBudget(-5)).toBe(0);
    expect(sliderToBudget(SLIDER_STEPS + 50)).toBe(SLIDER_MAX);
    expect(sliderToBudget(Number.NaN)).toBe(0);
    expect(budgetToSlider(10 ** 9)).toBe(SLIDER_STEPS);
    expect(budgetToSlider(-3)).toBe(0);
  });
  it('is monotonic', () => {
    let prev = -1;
    for (let p = 0; p <= SLIDER_STEPS; p++) {
      const b = sliderToBudget(p);
      expect(b).toBeGreaterThanOrEqual(prev);
      prev = b;
    }
  });
  it('spends the middle of its travel on small budgets (log scale)', () => {
    const mid = sliderToBudget(SLIDER_STEPS / 2);
    expect(mid).toBeGreaterThan(200);
    expect(mid).toBeLessThan(1000);
  });
  it.each([100, 2000, 5000, 12500, 50000, 150000])('round-trips budget %s to within one step', (b) => {
    const back = sliderToBudget(budgetToSlider(b));
    expect(Math.abs(back - b) / b).toBeLessThan(0.03);
  });
  it('lands on readable budgets', () => {
    expect(niceBudget(12345)).toBe(12300);
    expect(niceBudget(87)).toBe(87);
    expect(niceBudget(1049)).toBe(1050);
    expect(niceBudget(187654)).toBe(188000);
  });
});

describe('parseBudget', () => {
  it.each([
    ['12500', 12500],
    [' 0 ', 0],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('accepts %j', (s, want) => expect(parseBudget(s)).toEqual({ ok: true, value: want }));
  it.each([
    ['12k', 'suffix'],
    ['1.5M', 'suffix'],
    ['-5', 'negative'],
    ['12.5', 'fraction'],
    ['abc', 'notNumber'],
    ['', 'notNumber'],
    ['0x10', 'notNumber'],
    ['1e3', 'notNumber'],
    ['9007199254740992', 'tooLarge'],
  ])('refuses %j as %s', (s, problem) => {
    const r = parseBudget(s);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issue).toEqual({ token: s.trim(), problem });
  });
});

describe('parseBudgets', () => {
  it('reads the default list', () => {
    expect(parseBudgets('2000,5000,12500,25000,50000')).toEqual({ ok: true, budgets: [2000, 5000, 12500, 25000, 50000] });
  });
  it('sorts, drops duplicates and accepts spaces and semicolons', () => {
    expect(parseBudgets(' 5000; 2000  5000,\n100 ,')).toEqual({ ok: true, budgets: [100, 2000, 5000] });
  });
  it('reports every bad entry of "12k, -5, abc"', () => {
    expect(parseBudgets('12k, -5, abc')).toEqual({
      ok: false,
      reason: 'invalid',
      issues: [
        { token: '12k', problem: 'suffix' },
        { token: '-5', problem: 'negative' },
        { token: 'abc', problem: 'notNumber' },
      ],
    });
  });
  it('reports bad entries beside good ones', () => {
    const r = parseBudgets('2000, 2.5, 3000');
    expect(r).toEqual({ ok: false, reason: 'invalid', issues: [{ token: '2.5', problem: 'fraction' }] });
  });
  it('refuses an empty list', () => {
    expect(parseBudgets(' , ,')).toEqual({ ok: false, reason: 'empty', issues: [] });
  });
  it('refuses too many budgets', () => {
    const many = Array.from({ length: 41 }, (_, i) => String(i * 100)).join(',');
    expect(parseBudgets(many)).toMatchObject({ ok: false, reason: 'tooMany' });
  });
});

describe('splitControls', () => {
  it('marks escape codes and stray control bytes, keeping tabs and line ends as text', () => {
    expect(splitControls('\u001b[32mok\u001b[0m\tdone\r\n')).toEqual([
      { text: '\\x1b', control: true },
      { text: '[32mok', control: false },
      { text: '\\x1b', control: true },
      { text: '[0m\tdone\r\n', control: false },
    ]);
    expect(splitControls('a\u0000\u007f')).toEqual([
      { text: 'a', control: false },
      { text: '\\x00', control: true },
      { text: '\\x7f', control: true },
    ]);
  });
  it('returns plain text as one segment, and empty text as one empty segment', () => {
    expect(splitControls('索引 plain')).toEqual([{ text: '索引 plain', control: false }]);
    expect(splitControls('')).toEqual([{ text: '', control: false }]);
  });
});

describe('baseName', () => {
  it.each([
    ['/home/u/proj', 'proj'],
    ['/home/u/proj/', 'proj'],
    ['C:\\Users\\u\\proj', 'proj'],
    ['rollout.jsonl', 'rollout.jsonl'],
    ['', ''],
    [null, ''],
    ['/', ''],
  ])('%s -> %s', (p, want) => {
    expect(baseName(p)).toBe(want);
  });
});
