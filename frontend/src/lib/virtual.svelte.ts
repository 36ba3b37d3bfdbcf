// A thin Svelte 5 wrapper over @tanstack/virtual-core. The maintained
// adapter, @tanstack/svelte-virtual 3.x, is built on Svelte 4 stores and has
// an open report that it loses the scroll element under Svelte 5
// (TanStack/virtual#866); the core is framework-free, so this file gives it
// runes: options are read from a getter inside an effect, and every change
// the core reports bumps one $state counter that the getters read.
import { untrack } from 'svelte';
import {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualItem,
} from '@tanstack/virtual-core';

export type { VirtualItem };

// The core reads the scroll element's size (clientHeight) the moment it
// attaches, inside the mount that created the rows: that read makes the
// engine do the page's first style and layout there and then, and the frame
// lays the page out again after what the read changes. The
// ResizeObserver's first report comes after the frame's own layout; until
// then the rows come from initialRect.
const observeRectAfterLayout: typeof observeElementRect = (instance, cb) => {
  const el = instance.scrollElement;
  const Observer = instance.targetWindow?.ResizeObserver;
  if (!el || !Observer) return observeElementRect(instance, cb);
  const ro = new Observer(() => cb({ width: el.clientWidth, height: el.clientHeight }));
  ro.observe(el, { box: 'content-box' });
  return () => ro.disconnect();
};

export interface VirtualOptions {
  count: number;
  estimateSize: (index: number) => number;
  overscan?: number;
  /** scrollMargin is the height above the first row inside the scroll element (the table head). */
  scrollMargin?: number;
  /** initialRect is the scroll element's size until it is measured: with a height, the first rows render with the table, before any layout. */
  initialRect?: { width: number; height: number };
}

export interface VirtualList {
  /** items are the rows to render now. */
  readonly items: VirtualItem[];
  /** totalSize is the height of every row, measured or estimated. */
  readonly totalSize: number;
  readonly instance: Virtualizer<HTMLElement, HTMLElement>;
}

/**
 * createVirtualList must be called while a component initialises (it owns
 * two effects). options is re-read whenever what it reads changes; element
 * gives the scroll container once it is bound.
 */
export function createVirtualList(options: () => VirtualOptions, element: () => HTMLElement | null | undefined): VirtualList {
  let version = $state(0);
  // A bump must not read the counter where it runs (inside an effect that
  // would make the effect depend on what it writes).
  const bump = () => untrack(() => version++);
  const initial = options();
  let written: HTMLElement | null = null;
  const v = new Virtualizer<HTMLElement, HTMLElement>({
    ...initial,
    getScrollElement: () => element() ?? null,
    observeElementRect: observeRectAfterLayout,
    observeElementOffset,
    scrollToFn: (offset, o, instance) => {
      // Attaching to a new element writes its offset back to it (0 for a
      // new element, which is at 0 already): a write that changes nothing
      // but lays the page out inside the mount.
      const el = instance.scrollElement;
      if (el !== written) {
        written = el;
        if (offset + (o.adjustments ?? 0) === 0 && !o.behavior) return;
      }
      elementScroll(offset, o, instance);
    },
    onChange: bump,
  });

  $effect(() => {
    const o = options();
    element(); // a new container re-attaches the observers
    v.setOptions({ ...v.options, ...o });
    v._willUpdate();
    bump();
  });
  $effect(() => v._didMount());

  return {
    get items() {
      void version;
      return v.getVirtualItems();
    },
    get totalSize() {
      void version;
      return v.getTotalSize();
    },
    instance: v,
  };
}
