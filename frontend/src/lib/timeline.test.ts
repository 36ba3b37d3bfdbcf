import { describe, expect, it } from 'vitest';
import type { Calibration, TimelineLane } from '../bridge';
import { calibrationSense, columns, corrected, markRadius, marks, timesKnown, toolColour, toolsByCount } from './timeline';

const call = (prompt: number, at = '') => ({ at, line: 0, input: prompt, cacheRead: 0, cacheWrite: 0, output: 10, reasoning: 0, prompt, model: 'm', contextWindow: 0, carried: 0, carriedTokens: 0 });
const result = (id: number, callIdx: number, tokens: number, tool = 'Bash') => ({ id, callId: 'c' + id, tool, at: '', line: 0, tokens, tokensExact: true, call: callIdx, until: -1, replaced: '' });
const lane = (over: Partial<TimelineLane> = {}): TimelineLane =>
  ({ sessionId: 1, agentId: '', kind: '', agentType: '', agentDescription: '', model: 'm', started: '', calls: [], results: [], compactions: [],
    contextWindow: 0, contextWindowSource: '', peak: -1, parentCall: -1, ...over }) as TimelineLane;
const cal = (over: Partial<Calibration>): Calibration =>
  ({ estimator: 'o200k_base', calls: 5, provider: 0, estimated: 0, ratio: 1, error: 0, spread: 0, exact: true, unread: 0, perCall: [], ...over }) as Calibration;

describe('timeline helpers', () => {
  it('lays calls out by index or by time, never backwards', () => {
    const l = lane({ calls: [call(10, '2026-01-01T00:00:10Z'), call(20, '2026-01-01T00:00:05Z'), call(30, '2026-01-01T00:01:00Z')] });
    expect(columns(l, 'index')).toEqual({ x: [1, 2, 3], prompt: [10, 20, 30] });
    expect(columns(l, 'time').x).toEqual([1767225610, 1767225610, 1767225660]);
    expect(timesKnown(l)).toBe(true);
    expect(timesKnown(lane({ calls: [call(1, '')] }))).toBe(false);
  });

  it('stacks each call’s new results from the previous prompt, largest first', () => {
    const l = lane({ calls: [call(100), call(400), call(450)], results: [result(1, 1, 100), result(2, 1, 200), result(3, 2, 50), result(4, -1, 9)] });
    expect(marks(l).map((m) => [m.id, m.call, m.y])).toEqual([
      [2, 1, 200],
      [1, 1, 350],
      [3, 2, 425],
    ]);
    expect(markRadius(0)).toBe(3);
    expect(markRadius(1e9)).toBe(14);
  });

  it('names tools by count with stable colours', () => {
    const l = lane({ results: [result(1, 0, 1, 'Read'), result(2, 0, 1, 'Bash'), result(3, 0, 1, 'Read')] });
    expect(toolsByCount(l)).toEqual([{ tool: 'Read', count: 2 }, { tool: 'Bash', count: 1 }]);
    expect(toolColour('Read')).toBe(toolColour('Read'));
    expect(toolColour('Read')).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('reads a calibration as low, high, even or none, and corrects by its ratio', () => {
    expect(calibrationSense(cal({ ratio: 1.136, error: 1 / 1.136 - 1 }))).toEqual({ sense: 'low', pct: 12 });
    expect(calibrationSense(cal({ ratio: 0.8, error: 0.25 }))).toEqual({ sense: 'high', pct: 25 });
    expect(calibrationSense(cal({ ratio: 1.004, error: -0.004 }))).toEqual({ sense: 'even', pct: 0 });
    expect(calibrationSense(cal({ calls: 0, ratio: 0 }))).toEqual({ sense: 'none', pct: 0 });
    expect(calibrationSense(null).sense).toBe('none');
    expect(corrected(cal({ ratio: 1.25 }), 1000)).toBe(1250);
    expect(corrected(cal({ ratio: 0, calls: 0 }), 1000)).toBe(1000);
  });
});
