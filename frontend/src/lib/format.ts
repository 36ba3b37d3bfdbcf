// Formatting helpers shared by every screen. They return plain strings that
// components interpolate as text; nothing here builds markup.

const group = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** formatCount groups thousands: 12500 -> "12,500". Non-finite values show as a dash. */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return group.format(n);
}

/** formatTokens is formatCount for token figures; a negative figure (the index's "not priced yet") is null so the caller can say "pending". */
export function formatTokens(n: number | null | undefined): string | null {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  if (n < 0) return null;
  return group.format(n);
}

/** formatCompact shortens large numbers for chart axes: 12500 -> "12.5k", 2000000 -> "2M". */
export function formatCompact(n: number): string {
  if (!Number.isFinite(n)) return '—';
  const a = Math.abs(n);
  const trim = (v: number) => String(Number(v.toPrecision(3)));
  if (a >= 1e15) return n.toExponential(2);
  if (a >= 1e12) return (n < 0 ? '-' : '') + trim(a / 1e12) + 'T';
  if (a >= 1e9) return (n < 0 ? '-' : '') + trim(a / 1e9) + 'B';
  if (a >= 1e6) return (n < 0 ? '-' : '') + trim(a / 1e6) + 'M';
  if (a >= 1e3) return (n < 0 ? '-' : '') + trim(a / 1e3) + 'k';
  return String(Math.round(n));
}

const units = ['B', 'KB', 'MB', 'GB', 'TB'];

/** formatBytes uses binary multiples with one decimal below 10 units: 1536 -> "1.5 KB". */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n) || n < 0) return '—';
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${n} B`;
  const s = v < 10 ? v.toFixed(1) : String(Math.round(v));
  return `${s.replace(/\.0$/, '')} ${units[u]}`;
}

/** formatRate shows a throughput in MB/s with one decimal. */
export function formatRate(mbs: number | null | undefined): string {
  if (mbs === null || mbs === undefined || !Number.isFinite(mbs) || mbs < 0) return '—';
  return `${mbs.toFixed(1)} MB/s`;
}

/** formatTime shows an ISO timestamp as local "YYYY-MM-DD HH:MM"; text that is not a date is returned as it is. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** percent is part/whole in 0..100, 0 when whole is not positive. */
export function percent(part: number, whole: number): number {
  if (!(whole > 0) || !Number.isFinite(part)) return 0;
  return Math.max(0, Math.min(100, (part / whole) * 100));
}

// The budget slider: positions 0..SLIDER_STEPS map onto 0..SLIDER_MAX tokens
// on a log scale, so small budgets (where the decision changes most) get as
// much travel as large ones.
export const SLIDER_STEPS = 1000;
export const SLIDER_MAX = 200000;
const LOG_MAX = Math.log1p(SLIDER_MAX);

/** niceBudget keeps three significant digits so the slider lands on readable budgets (12345 -> 12300) while staying finer than one slider step. */
export function niceBudget(b: number): number {
  if (b < 1000) return Math.round(b);
  const mag = 10 ** (Math.floor(Math.log10(b)) - 2);
  return Math.round(b / mag) * mag;
}

/** sliderToBudget maps a slider position to a token budget. */
export function sliderToBudget(pos: number): number {
  const p = Math.max(0, Math.min(SLIDER_STEPS, Number.isFinite(pos) ? pos : 0));
  if (p === SLIDER_STEPS) return SLIDER_MAX;
  return Math.min(SLIDER_MAX, niceBudget(Math.expm1((p / SLIDER_STEPS) * LOG_MAX)));
}

/** budgetToSlider is the inverse of sliderToBudget; budgets beyond the slider's range pin it to the end. */
export function budgetToSlider(budget: number): number {
  if (!Number.isFinite(budget) || budget <= 0) return 0;
  if (budget >= SLIDER_MAX) return SLIDER_STEPS;
  return Math.round((Math.log1p(budget) / LOG_MAX) * SLIDER_STEPS);
}

/** MAX_BUDGET is the largest budget the configuration accepts (2^53-1, RETENTION.md). */
export const MAX_BUDGET = Number.MAX_SAFE_INTEGER;

/** BudgetProblem says why one token of budget input was refused. */
export type BudgetProblem = 'notNumber' | 'negative' | 'fraction' | 'tooLarge' | 'suffix';

export interface BudgetIssue {
  token: string;
  problem: BudgetProblem;
}

export type BudgetParse = { ok: true; value: number } | { ok: false; issue: BudgetIssue };

/** parseBudget reads one budget: a whole, non-negative number of tokens, digits only (grouping commas are not allowed; "12k" is refused with a hint). */
export function parseBudget(raw: string): BudgetParse {
  const token = raw.trim();
  const fail = (problem: BudgetProblem): BudgetParse => ({ ok: false, issue: { token, problem } });
  if (token === '') return fail('notNumber');
  if (/^\d+$/.test(token)) {
    const v = Number(token);
    return v > MAX_BUDGET ? fail('tooLarge') : { ok: true, value: v };
  }
  if (/^[+-]?\d+(\.\d+)?[kKmM]$/.test(token)) return fail('suffix');
  const n = Number(token);
  if (!Number.isFinite(n) || token.startsWith('0x')) return fail('notNumber');
  if (n < 0) return fail('negative');
  if (!Number.isInteger(n)) return fail('fraction');
  return fail('notNumber');
}

export type BudgetsParse =
  | { ok: true; budgets: number[] }
  | { ok: false; reason: 'empty' | 'invalid' | 'tooMany'; issues: BudgetIssue[] };

/** MAX_SWEEP_BUDGETS bounds one sweep; each budget re-runs the decision over every result in scope. */
export const MAX_SWEEP_BUDGETS = 40;

/** parseBudgets reads a comma- or space-separated list of budgets, sorted and without duplicates; every bad entry is reported, not just the first. */
export function parseBudgets(text: string): BudgetsParse {
  const tokens = text
    .split(/[,;\s]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (tokens.length === 0) return { ok: false, reason: 'empty', issues: [] };
  const issues: BudgetIssue[] = [];
  const values = new Set<number>();
  for (const tok of tokens) {
    const r = parseBudget(tok);
    if (r.ok) values.add(r.value);
    else issues.push(r.issue);
  }
  if (issues.length) return { ok: false, reason: 'invalid', issues };
  if (values.size > MAX_SWEEP_BUDGETS) return { ok: false, reason: 'tooMany', issues: [] };
  return { ok: true, budgets: [...values].sort((a, b) => a - b) };
}

/** Segment is a run of text, or one control character shown by its escape. */
export interface Segment {
  text: string;
  control: boolean;
}

// C0 controls other than tab, newline and carriage return, and DEL.
// eslint-disable-next-line no-control-regex
const controls = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** splitControls cuts text at control characters (terminal colour codes, stray bytes) so a view can mark each one, spelled as a hex escape ("\\x1b"), instead of printing an invisible or missing glyph. Display only: sizes are taken before it. */
export function splitControls(s: string): Segment[] {
  const out: Segment[] = [];
  let last = 0;
  for (const m of s.matchAll(controls)) {
    const at = m.index ?? 0;
    if (at > last) out.push({ text: s.slice(last, at), control: false });
    out.push({ text: '\\x' + m[0].charCodeAt(0).toString(16).padStart(2, '0'), control: true });
    last = at + 1;
  }
  if (last < s.length || out.length === 0) out.push({ text: s.slice(last), control: false });
  return out;
}

/** utf8Length counts the UTF-8 bytes of s: files and blocks are measured in bytes. */
export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** baseName is the last segment of a path with / or \ separators ("" for none): "/home/u/proj/" -> "proj". */
export function baseName(p: string | null | undefined): string {
  const parts = (p || '').split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? '';
}

/** formatClock shows a moment (Unix ms) as local "HH:MM:SS" when it is today (now's day), else as formatTime does. */
export function formatClock(at: number, now: number): string {
  const d = new Date(at);
  const n = new Date(now);
  const p = (x: number) => String(x).padStart(2, '0');
  if (d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate()) {
    return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  }
  return formatTime(d.toISOString());
}
