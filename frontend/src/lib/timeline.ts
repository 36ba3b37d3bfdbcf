// Pure helpers of the session timeline: the chart's columns, where each
// result mark sits, tool colours and the calibration's wording. Nothing here
// builds markup.
import type { Calibration, TimelineLane } from '../bridge';

export type Axis = 'index' | 'time';

/** Columns are what uPlot draws: x (call index, or seconds since the epoch) and each call's prompt. */
export interface Columns {
  x: number[];
  prompt: number[];
}

/** timesKnown says whether every call has a time, so the time axis can be offered. */
export function timesKnown(lane: TimelineLane): boolean {
  return lane.calls.length > 0 && lane.calls.every((c) => c.at !== '' && Number.isFinite(Date.parse(c.at)));
}

/**
 * columns lays a lane out on the chosen axis. Times that run backwards (a
 * clock step) are held at the previous call's, so x never decreases.
 */
export function columns(lane: TimelineLane, axis: Axis): Columns {
  const n = lane.calls.length;
  const x = new Array<number>(n);
  const prompt = new Array<number>(n);
  let last = -Infinity;
  for (let i = 0; i < n; i++) {
    const c = lane.calls[i];
    prompt[i] = c.prompt;
    if (axis === 'time') {
      last = Math.max(last, Date.parse(c.at) / 1000);
      x[i] = last;
    } else {
      x[i] = i + 1;
    }
  }
  return { x, prompt };
}

/** Mark is one result drawn at the call that first carried it: y is the middle of its share of that call's growth. */
export interface Mark {
  result: number;
  id: number;
  call: number;
  y: number;
  tokens: number;
  tool: string;
}

/**
 * marks stacks each call's newly carried results upward from the previous
 * call's prompt, largest first, so a mark's height shows what its result
 * added; results no call carried are not drawn.
 */
export function marks(lane: TimelineLane): Mark[] {
  const byCall = new Map<number, number[]>();
  lane.results.forEach((r, i) => {
    if (r.call < 0 || r.call >= lane.calls.length) return;
    const list = byCall.get(r.call);
    if (list) list.push(i);
    else byCall.set(r.call, [i]);
  });
  const out: Mark[] = [];
  for (const [call, idx] of byCall) {
    idx.sort((a, b) => lane.results[b].tokens - lane.results[a].tokens);
    let base = call > 0 ? lane.calls[call - 1].prompt : 0;
    for (const i of idx) {
      const r = lane.results[i];
      out.push({ result: i, id: r.id, call, y: base + r.tokens / 2, tokens: r.tokens, tool: r.tool });
      base += r.tokens;
    }
  }
  return out;
}

/** markRadius grows with the square root of a result's tokens, in CSS pixels. */
export function markRadius(tokens: number): number {
  return Math.max(3, Math.min(14, 2 + Math.sqrt(Math.max(0, tokens)) / 10));
}

const palette = ['#2f6fb3', '#d9822b', '#2e9c6a', '#b9414a', '#7b5bb6', '#8c6d31', '#c2579d', '#4d8f99', '#6b7a8f', '#a0a33a'];

/** toolColour gives each tool name a stable colour of the palette. */
export function toolColour(tool: string): string {
  let h = 0;
  for (let i = 0; i < tool.length; i++) h = (h * 31 + tool.charCodeAt(i)) >>> 0;
  return palette[h % palette.length];
}

/** toolsByCount lists a lane's tools, most results first, for the legend. */
export function toolsByCount(lane: TimelineLane, max = 8): { tool: string; count: number }[] {
  const n = new Map<string, number>();
  for (const r of lane.results) n.set(r.tool, (n.get(r.tool) ?? 0) + 1);
  return [...n].map(([tool, count]) => ({ tool, count })).sort((a, b) => b.count - a.count || a.tool.localeCompare(b.tool)).slice(0, max);
}

/** CalibrationSense is how a calibration reads: the estimate runs low, high, or on target (within 1%), or nothing compared. */
export type CalibrationSense = 'low' | 'high' | 'even' | 'none';

/** calibrationSense reads a calibration's error; pct is its size in whole percent. */
export function calibrationSense(c: Calibration | null | undefined): { sense: CalibrationSense; pct: number } {
  if (!c || c.calls === 0 || !(c.ratio > 0)) return { sense: 'none', pct: 0 };
  const pct = Math.round(Math.abs(c.error) * 100);
  if (pct < 1) return { sense: 'even', pct: 0 };
  return { sense: c.error < 0 ? 'low' : 'high', pct };
}

/** corrected is an estimate times the calibration's ratio (unchanged when nothing compared). */
export function corrected(c: Calibration | null | undefined, estimate: number): number {
  if (!c || !(c.ratio > 0)) return estimate;
  return Math.round(estimate * c.ratio);
}
