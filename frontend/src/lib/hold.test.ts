import { describe, expect, it, vi } from 'vitest';
import { holdWhileInside } from './hold';

// A stand-in for the list's element: an event target that knows its children.
function fakeNode(children: object[] = []) {
  const t = new EventTarget() as EventTarget & { contains: (n: unknown) => boolean };
  t.contains = (n: unknown) => n === t || children.includes(n as object);
  return t as unknown as HTMLElement;
}
// The callbacks run in a microtask (never mid-update); fire waits for it.
async function fire(node: HTMLElement, type: string, relatedTarget: unknown = null) {
  node.dispatchEvent(Object.assign(new Event(type), { relatedTarget }));
  await Promise.resolve();
}

describe('holdWhileInside', () => {
  it('holds while the pointer or focus is inside and releases once both have left', async () => {
    const child = {};
    const node = fakeNode([child]);
    const cb = { hold: vi.fn(), release: vi.fn() };
    const action = holdWhileInside(node, cb);
    await fire(node, 'mouseenter');
    await fire(node, 'focusin');
    expect(cb.hold).toHaveBeenCalledTimes(1);
    await fire(node, 'mouseleave');
    expect(cb.release).not.toHaveBeenCalled(); // focus is still inside
    await fire(node, 'focusout', child); // focus moved to another row
    expect(cb.release).not.toHaveBeenCalled();
    await fire(node, 'focusout', null);
    expect(cb.release).toHaveBeenCalledTimes(1);
    action.destroy();
    await fire(node, 'mouseenter');
    expect(cb.hold).toHaveBeenCalledTimes(1);
  });

  it('releases when torn down while held (a row opened with a click)', async () => {
    const node = fakeNode();
    const cb = { hold: vi.fn(), release: vi.fn() };
    const action = holdWhileInside(node, cb);
    await fire(node, 'mouseenter');
    expect(cb.hold).toHaveBeenCalledTimes(1);
    action.destroy();
    await Promise.resolve();
    expect(cb.release).toHaveBeenCalledTimes(1);
    const idle = holdWhileInside(fakeNode(), cb);
    idle.destroy();
    await Promise.resolve();
    expect(cb.release).toHaveBeenCalledTimes(1);
  });

  it('calls the callbacks it was last given', async () => {
    const node = fakeNode();
    const first = { hold: vi.fn(), release: vi.fn() };
    const second = { hold: vi.fn(), release: vi.fn() };
    const action = holdWhileInside(node, first);
    action.update(second);
    await fire(node, 'mouseenter');
    await fire(node, 'mouseleave');
    expect(first.hold).not.toHaveBeenCalled();
    expect(second.hold).toHaveBeenCalledTimes(1);
    expect(second.release).toHaveBeenCalledTimes(1);
  });
});
