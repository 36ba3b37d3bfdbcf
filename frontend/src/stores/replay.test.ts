import { get } from 'svelte/store';
import { describe, expect, it } from 'vitest';
import type { ReplayView } from '../bridge';
import { fakeBridge } from '../test/fakeBridge';
import { createReplayStore } from './replay';

function view(over: Partial<ReplayView> = {}): ReplayView {
  return {
    replayable: true, code: '', reason: '', reproduced: true, policy: 'dsh-bytes', tried: ['dsh-bytes'], estimator: 'dsh-meter', route: 'deepseek-v4',
    budget: 8000, budgetUnit: 'bytes', budgetSource: 'range', budgetRange: { min: 8000, max: 8000 }, spillPath: '/s', spillState: 'exists',
    notice: '(Omitted 1 bytes.)', omittedBytes: 1, omittedImages: 0, ...over,
  } as ReplayView;
}

describe('replay store', () => {
  it('asks Go with no budget and keeps the answer for its result', async () => {
    const asked: Array<[number, number | null | undefined]> = [];
    const s = createReplayStore(fakeBridge({ replay: (id, b) => (asked.push([id, b]), Promise.resolve(view())) }));
    await s.run(7);
    expect(asked).toEqual([[7, null]]);
    const st = get(s);
    expect(st.state === 'ready' && st.resultId === 7 && st.value.reproduced).toBe(true);
  });

  it('drops an answer that arrives after a reset', async () => {
    let release: (v: ReplayView) => void = () => {};
    const s = createReplayStore(fakeBridge({ replay: () => new Promise((r) => (release = r)) }));
    const p = s.run(3);
    s.reset();
    release(view());
    await p;
    expect(get(s).state).toBe('idle');
  });

  it('reports a failure', async () => {
    const s = createReplayStore(fakeBridge({ replay: () => Promise.reject(new Error('no index')) }));
    await s.run(1);
    const st = get(s);
    expect(st.state === 'error' && st.error.message).toBe('no index');
  });
});
