// The page's start-up moments, for the window's start-up trace: the Go side
// writes them out only when SPILLSCOPE_TRACE_STARTUP is set, so here they
// cost one event, once, after the first rows have painted.

import { dropFirstPage } from './firstpage';

const marks: Record<string, number> = {};
let sent = false;
// Imported first by main.ts: the bundle starts to run here.
mark('script-start');

/** mark notes the first time name happened, in performance.now() ms (the page's navigation is 0). */
export function mark(name: string): void {
  if (!(name in marks)) marks[name] = performance.now();
}

/** navigationMarks are the browser's own moments of the page's load, where it keeps them. */
function navigationMarks(): Record<string, number> {
  const out: Record<string, number> = {};
  const nav = performance.getEntriesByType?.('navigation')[0] as PerformanceNavigationTiming | undefined;
  if (nav) {
    out['html-response'] = nav.responseEnd;
    out['dom-interactive'] = nav.domInteractive;
    out['dom-content-loaded'] = nav.domContentLoadedEventEnd;
  }
  for (const r of performance.getEntriesByType?.('resource') ?? []) {
    const name = (r as PerformanceResourceTiming).name;
    if (/\.js$/.test(name)) out['script-response'] = Math.max(out['script-response'] ?? 0, (r as PerformanceResourceTiming).responseEnd);
    if (/\.css$/.test(name)) out['css-response'] = Math.max(out['css-response'] ?? 0, (r as PerformanceResourceTiming).responseEnd);
  }
  for (const p of performance.getEntriesByType?.('paint') ?? []) out[p.name] = p.startTime;
  return out;
}

type Emit = (name: string, data: unknown) => void;

/**
 * firstRowsPainted says the first screen's rows are on their way to the DOM
 * (their page has arrived). The first animation frame that finds selector
 * in the document is the frame that draws the rows; the task after it sends
 * the marks to Go (the event "startup:marks"), once.
 */
export function firstRowsPainted(selector: string, emit: Emit | null = wailsEmit()): void {
  if (sent) return;
  sent = true;
  mark('rows-data');
  let frames = 0;
  const frame = () => {
    const row = document.querySelector<HTMLElement>(selector);
    if (!row) {
      // A screen that never draws a row (an error, an empty index) sends nothing.
      if (++frames < 600) requestAnimationFrame(frame);
      return;
    }
    mark('rows-frame');
    setTimeout(() => {
      mark('rows-painted');
      // first: which row painted first (its result or session id).
      const first = row.dataset.resultId ?? row.dataset.sessionId ?? '';
      emit?.('startup:marks', { marks: { ...navigationMarks(), ...marks }, now: performance.now(), first });
      startupDone();
    }, 0);
  };
  requestAnimationFrame(frame);
}

function wailsEmit(): Emit | null {
  const rt = (globalThis as { runtime?: { EventsEmit?: Emit } }).runtime;
  return rt?.EventsEmit ? (name, data) => rt.EventsEmit?.(name, data) : null;
}

const waiting: (() => void)[] = [];
let done = false;

/**
 * afterFirstPaint runs fn once the first screen's rows have painted, or
 * latestMs after it was asked at the latest (a screen without rows, a slow
 * index): what only other screens need neither holds the first rows' page
 * on the main thread nor takes Go's time from it.
 */
export function afterFirstPaint(fn: () => void, latestMs = 1000): void {
  if (done) return fn();
  waiting.push(fn);
  setTimeout(startupDone, latestMs);
}

/** starting is true until the first screen has painted its rows (or has none to wait for). */
export function starting(): boolean {
  return !done;
}

/** startupDone runs what waits for the first paint (also when the first screen has no rows to wait for). */
export function startupDone(): void {
  done = true;
  // A first page prefetched for a screen that did not take it is stale by
  // the time another screen could.
  dropFirstPage();
  for (const fn of waiting.splice(0)) fn();
}
