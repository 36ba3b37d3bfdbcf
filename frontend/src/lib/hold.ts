/**
 * holdWhileInside is a Svelte action for lists whose order changes while an
 * index pass runs: it calls hold when the pointer or keyboard focus enters
 * the node and release when both have left it, so a list can keep its rows
 * still under a click.
 */
export function holdWhileInside(node: HTMLElement, cb: { hold: () => void; release: () => void }) {
  let current = cb;
  let pointer = false;
  let focus = false;
  const update = (p: boolean, f: boolean) => {
    const was = pointer || focus;
    pointer = p;
    focus = f;
    // Deferred: focus can leave while the list is being torn down (a row
    // opened with Enter), and state must not change mid-update.
    if (!was && (p || f)) queueMicrotask(() => current.hold());
    else if (was && !p && !f) queueMicrotask(() => current.release());
  };
  const enter = () => update(true, focus);
  const leave = () => update(false, focus);
  const focusIn = () => update(pointer, true);
  const focusOut = (e: FocusEvent) => {
    const to = e.relatedTarget as Node | null;
    if (to && node.contains(to)) return;
    update(pointer, false);
  };
  node.addEventListener('mouseenter', enter);
  node.addEventListener('mouseleave', leave);
  node.addEventListener('focusin', focusIn);
  node.addEventListener('focusout', focusOut);
  return {
    update(next: { hold: () => void; release: () => void }) {
      current = next;
    },
    destroy() {
      node.removeEventListener('mouseenter', enter);
      node.removeEventListener('mouseleave', leave);
      node.removeEventListener('focusin', focusIn);
      node.removeEventListener('focusout', focusOut);
      // A list torn down under the pointer (a row opened with a click)
      // outlives its table: it must not stay held, or it would miss every
      // change until the pointer passed over it again.
      if (pointer || focus) {
        pointer = focus = false;
        queueMicrotask(() => current.release());
      }
    },
  };
}
