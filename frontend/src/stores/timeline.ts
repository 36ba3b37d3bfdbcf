import { get, writable, type Readable } from 'svelte/store';
import type { Bridge, CalibrationView, Filled, Timeline } from '../bridge';
import type { Axis } from '../lib/timeline';
import { failure } from './common';
import type { List } from './sessions';

/** Pick is the call "what filled it" looks at: a lane (0 the session's own, i its i-th subagent) and a call index in it, -1 the lane's peak. */
export interface Pick {
  lane: number;
  call: number;
}

export interface TimelineState {
  sessionId: number;
  timeline: List<Timeline>;
  /** calibration is every token estimator's, asked for once the chart is drawn. */
  calibration: List<CalibrationView>;
  axis: Axis;
  pick: Pick;
  filled: List<Filled>;
  /** budget is the seed policy's budget "what filled it" re-runs at. */
  budget: number;
}

export interface TimelineStore extends Readable<TimelineState> {
  /** open loads a transcript's timeline (again when it is already open: reload); then its calibration and what filled its peak. */
  open(sessionId: number): Promise<void>;
  /** reload reads the open timeline again (a "session changed" event, an index pass). */
  reload(): Promise<void>;
  setAxis(a: Axis): void;
  /** pickCall chooses the call "what filled it" looks at. */
  pickCall(p: Pick): Promise<void>;
  /** setBudget re-runs "what filled it" at another budget. */
  setBudget(b: number): Promise<void>;
  /** ensureFilled loads "what filled it" for the picked call when it is not loaded yet (the panel is shown). */
  ensureFilled(): Promise<void>;
}

/** calibrationCache keeps each session's every-estimator calibration: the session view and the sweep read the same figures. */
const calibrationCache = new Map<number, Promise<CalibrationView>>();

/** calibrationOf asks Go for a session's calibration once per session (until forgetCalibration). */
export function calibrationOf(b: Bridge, sessionId: number): Promise<CalibrationView> {
  let p = calibrationCache.get(sessionId);
  if (!p) {
    p = b.calibration(sessionId);
    calibrationCache.set(sessionId, p);
    p.catch(() => calibrationCache.delete(sessionId));
  }
  return p;
}

/** forgetCalibration drops a session's cached calibration (its log changed). */
export function forgetCalibration(sessionId: number): void {
  calibrationCache.delete(sessionId);
}

export function createTimelineStore(b: Bridge, opts: { budget?: number } = {}): TimelineStore {
  const state = writable<TimelineState>({
    sessionId: 0,
    timeline: { state: 'idle' },
    calibration: { state: 'idle' },
    axis: 'index',
    pick: { lane: 0, call: -1 },
    filled: { state: 'idle' },
    budget: opts.budget ?? 12500,
  });
  const { subscribe, update } = state;
  // seq drops answers to a session that is no longer the open one.
  let seq = 0;

  function laneRow(s: TimelineState, lane: number): number {
    if (s.timeline.state !== 'ready') return 0;
    const t = s.timeline.value;
    return lane === 0 ? t.lane.sessionId : (t.subagents[lane - 1]?.sessionId ?? 0);
  }

  async function loadFilled(my: number) {
    const s = get(state);
    const row = laneRow(s, s.pick.lane);
    if (!row) return;
    update((x) => ({ ...x, filled: { state: 'loading', value: 'value' in x.filled ? x.filled.value : undefined } }));
    try {
      const f = await b.filled({ sessionId: row, call: s.pick.call, budget: s.budget });
      if (my === seq) update((x) => ({ ...x, filled: { state: 'ready', value: f } }));
    } catch (e) {
      if (my === seq) update((x) => ({ ...x, filled: { state: 'error', error: failure(e) } }));
    }
  }

  async function open(sessionId: number) {
    const my = ++seq;
    const same = get(state).sessionId === sessionId;
    update((s) => ({
      ...s,
      sessionId,
      timeline: { state: 'loading', value: same && 'value' in s.timeline ? s.timeline.value : undefined },
      pick: same ? s.pick : { lane: 0, call: -1 },
      ...(same ? {} : { calibration: { state: 'idle' as const }, filled: { state: 'idle' as const } }),
    }));
    let t: Timeline;
    try {
      t = await b.timeline(sessionId);
    } catch (e) {
      if (my === seq) update((s) => ({ ...s, timeline: { state: 'error', error: failure(e) } }));
      return;
    }
    if (my !== seq) return;
    const lanes = 1 + t.subagents.length;
    update((s) => ({
      ...s,
      timeline: { state: 'ready', value: t },
      // A picked call the reloaded timeline no longer has falls back to the peak.
      pick: s.pick.lane < lanes ? s.pick : { lane: 0, call: -1 },
    }));
    // A reload refreshes what filled it where the panel had loaded it.
    if (same && get(state).filled.state !== 'idle') void loadFilled(my);
    if (same) forgetCalibration(sessionId);
    update((s) => ({ ...s, calibration: { state: 'loading', value: 'value' in s.calibration ? s.calibration.value : undefined } }));
    try {
      const c = await calibrationOf(b, sessionId);
      if (my === seq) update((s) => ({ ...s, calibration: { state: 'ready', value: c } }));
    } catch (e) {
      if (my === seq) update((s) => ({ ...s, calibration: { state: 'error', error: failure(e) } }));
    }
  }

  return {
    subscribe,
    open,
    reload: async () => {
      const id = get(state).sessionId;
      if (id) await open(id);
    },
    setAxis: (axis) => update((s) => ({ ...s, axis })),
    pickCall: async (pick) => {
      update((s) => ({ ...s, pick }));
      await loadFilled(seq);
    },
    ensureFilled: async () => {
      const s = get(state);
      if (s.timeline.state === 'ready' && s.filled.state === 'idle') await loadFilled(seq);
    },
    setBudget: async (budget) => {
      if (!(budget >= 0) || budget === get(state).budget) return;
      update((s) => ({ ...s, budget }));
      if (get(state).filled.state !== 'idle') await loadFilled(seq);
    },
  };
}
