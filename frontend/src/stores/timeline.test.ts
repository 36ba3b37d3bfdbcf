import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { createTimelineStore } from './timeline';
import { fakeBridge } from '../test/fakeBridge';
import type { CalibrationView, Filled, Timeline } from '../bridge';

beforeEach(() => vi.spyOn(console, 'error').mockImplementation(() => {}));
afterEach(() => vi.restoreAllMocks());

const lane = (sessionId: number) => ({ sessionId, agentId: sessionId === 1 ? '' : 'a', kind: '', agentType: '', agentDescription: '', model: 'm', started: '',
  calls: [], results: [], compactions: [], contextWindow: 0, contextWindowSource: '', peak: -1, parentCall: -1 });
const timeline = (id: number): Timeline => ({ session: { id }, lane: lane(id), subagents: [lane(id + 100)], calibration: { estimator: 'o200k_base' }, estimator: 'o200k_base' }) as unknown as Timeline;
const filled = (call: number): Filled => ({ call, at: '', prompt: 10, results: [], tokens: 0, others: 0, policy: 'dsh-tokens', budget: 12500, saved: 0 }) as unknown as Filled;

describe('timeline store', () => {
  it('opens a timeline, then its calibration once per session; what filled it waits for the panel', async () => {
    const tl = vi.fn((id: number) => Promise.resolve(timeline(id)));
    const calibration = vi.fn((id: number) => Promise.resolve({ sessionId: id, estimators: [] } as unknown as CalibrationView));
    const fill = vi.fn((q: { sessionId?: number; call?: number }) => Promise.resolve(filled(q.call ?? -1)));
    const s = createTimelineStore(fakeBridge({ timeline: tl, calibration, filled: fill }), { budget: 4000 });
    await s.open(7);
    expect(get(s).timeline.state).toBe('ready');
    expect(get(s).calibration.state).toBe('ready');
    expect(fill).not.toHaveBeenCalled();
    await s.ensureFilled();
    expect(fill).toHaveBeenCalledWith({ sessionId: 7, call: -1, budget: 4000 });
    // A call of the subagent's lane asks about the subagent's transcript.
    await s.pickCall({ lane: 1, call: 3 });
    expect(fill).toHaveBeenLastCalledWith({ sessionId: 107, call: 3, budget: 4000 });
    await s.setBudget(8000);
    expect(fill).toHaveBeenLastCalledWith({ sessionId: 107, call: 3, budget: 8000 });
    // Another session's store opening later reads the cached calibration.
    const t2 = createTimelineStore(fakeBridge({ timeline: tl, calibration, filled: fill }));
    await t2.open(7);
    expect(calibration).toHaveBeenCalledTimes(1);
    // A reload (the session changed) asks again and keeps the pick.
    await s.reload();
    expect(tl).toHaveBeenCalledTimes(3);
    expect(calibration).toHaveBeenCalledTimes(2);
    expect(get(s).pick).toEqual({ lane: 1, call: 3 });
  });

  it('keeps a failure and drops answers for a session no longer open', async () => {
    let release: (t: Timeline) => void = () => {};
    const tl = vi.fn((id: number) => (id === 1 ? new Promise<Timeline>((r) => (release = r)) : Promise.reject({ code: 'not-found', params: {}, detail: 'gone' })));
    const s = createTimelineStore(fakeBridge({ timeline: tl, calibration: () => new Promise(() => {}) }));
    const first = s.open(1);
    await s.open(2);
    expect(get(s).timeline).toMatchObject({ state: 'error', error: { code: 'not-found' } });
    release(timeline(1));
    await first;
    expect(get(s).sessionId).toBe(2);
    expect(get(s).timeline.state).toBe('error');
  });
});
