// A log-scale axis for the sweep chart: budgets are usually a geometric
// list, so equal ratios get equal distances and a budget sits where its
// value says, not where its index does.

/** LogAxis maps values in [lo, hi] (both > 0) onto [from, to] on a log scale. */
export interface LogAxis {
  lo: number;
  hi: number;
  at(v: number): number;
  /** contains reports whether v is within the axis's range. */
  contains(v: number): boolean;
}

/**
 * logAxis spans the values given (budgets of 0 are drawn at 1: a log axis has
 * no zero), widened by pad (a ratio) on each side so the end points clear the
 * edges; one value gets a decade around it.
 */
export function logAxis(values: number[], from: number, to: number, pad = 1.15): LogAxis {
  const pos = values.map((v) => Math.max(1, v));
  let lo = pos.length ? Math.min(...pos) : 1;
  let hi = pos.length ? Math.max(...pos) : 10;
  if (hi / lo < 1.01) {
    lo /= Math.sqrt(10);
    hi *= Math.sqrt(10);
  }
  lo /= pad;
  hi *= pad;
  const a = Math.log10(lo);
  const span = Math.log10(hi) - a;
  return {
    lo,
    hi,
    at: (v) => from + ((Math.log10(Math.max(1, v)) - a) / span) * (to - from),
    contains: (v) => v >= lo && v <= hi,
  };
}

/**
 * logTicks are round values within [lo, hi] to label, at most max of them:
 * powers of ten with their doubles and fives, or threes, when few powers fall
 * in the range; over many decades every other (third, ...) power.
 */
export function logTicks(lo: number, hi: number, max = 8): number[] {
  const out: number[] = [];
  for (const steps of [[1, 2, 5], [1, 3], [1]]) {
    out.length = 0;
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      for (const m of steps) {
        const v = m * 10 ** e;
        if (v >= lo && v <= hi) out.push(v);
      }
    }
    if (out.length <= max) return [...out];
  }
  // Still too many powers of ten: every step-th of them.
  const step = Math.ceil(out.length / max);
  return out.filter((_, i) => i % step === 0);
}
