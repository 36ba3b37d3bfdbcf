// Credential values are masked in Go before text reaches the window; the
// masks say where each [redacted] placeholder stands so a view can mark it.
// Go counts in UTF-8 bytes, JavaScript strings in UTF-16 units: this is the
// one place that maps one to the other.
import type { MaskSpan } from '../bridge';

export interface MaskSegment {
  text: string;
  masked: boolean;
}

/** PLACEHOLDER is what Go writes in place of a credential value. */
export const PLACEHOLDER = '[redacted]';

/** byteToIndex maps sorted UTF-8 byte offsets of s to UTF-16 indexes, in one pass. */
export function byteToIndex(s: string, offsets: number[]): number[] {
  const out: number[] = [];
  let bytes = 0;
  let k = 0;
  for (let i = 0; i <= s.length && k < offsets.length; ) {
    while (k < offsets.length && offsets[k] <= bytes) out[k++] = i;
    if (i === s.length) break;
    const c = s.codePointAt(i) ?? 0;
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    i += c >= 0x10000 ? 2 : 1;
  }
  while (k < offsets.length) out[k++] = s.length;
  return out;
}

/**
 * maskSegments cuts shown text at its placeholders: segments marked masked
 * hold exactly a placeholder, so a view can style it; a mask that does not
 * point at one (a text shown with its credentials revealed has none) is
 * ignored rather than trusted.
 */
export function maskSegments(text: string, masks: MaskSpan[] | null | undefined): MaskSegment[] {
  if (!masks?.length) return [{ text, masked: false }];
  const at = byteToIndex(
    text,
    masks.map((m) => m.at),
  );
  const out: MaskSegment[] = [];
  let last = 0;
  for (const i of at) {
    if (i < last || text.slice(i, i + PLACEHOLDER.length) !== PLACEHOLDER) continue;
    if (i > last) out.push({ text: text.slice(last, i), masked: false });
    out.push({ text: PLACEHOLDER, masked: true });
    last = i + PLACEHOLDER.length;
  }
  if (last < text.length || out.length === 0) out.push({ text: text.slice(last), masked: false });
  return out;
}

/**
 * maskedOffset maps a byte offset in the real text (a link's start, a cut)
 * to the shown text its masks describe, as Go's links.MaskedOffset does: an
 * offset inside a masked value maps to its placeholder. byteToIndex then
 * gives the string index to scroll to or highlight.
 */
export function maskedOffset(masks: MaskSpan[] | null | undefined, off: number): number {
  let shift = 0;
  for (const m of masks ?? []) {
    if (off < m.start) break;
    if (off < m.end) return m.at;
    shift = m.at + PLACEHOLDER.length - m.end;
  }
  return off + shift;
}

/** maskedEnd is maskedOffset for the end of a range: an end inside a masked value takes its whole placeholder. */
function maskedEnd(masks: MaskSpan[] | null | undefined, off: number): number {
  for (const m of masks ?? []) {
    if (off > m.start && off < m.end) return m.at + PLACEHOLDER.length;
  }
  return maskedOffset(masks, off);
}

/**
 * focusRange says where a byte range of a block's real text (a link Go
 * found, [start, end)) stands in the text a pane shows: string indexes
 * [from, to) of shown, whose masks describe it and which begins sourceStart
 * bytes into the real text (a kept piece of a cut block). Null when the
 * range is not in what is shown (cut away, or past a shortened display).
 */
export function focusRange(
  shown: string,
  masks: MaskSpan[] | null | undefined,
  start: number,
  end: number,
  sourceStart = 0,
  shownBytes = Infinity,
): [number, number] | null {
  const s = start - sourceStart;
  const e = end - sourceStart;
  if (start < 0 || end <= start || e <= 0 || s >= shownBytes) return null;
  const ms = maskedOffset(masks, Math.max(s, 0));
  const me = maskedEnd(masks, Math.min(e, shownBytes));
  const [from, to] = byteToIndex(shown, [ms, me]);
  return to > from ? [from, to] : null;
}

/** FocusSegments are shown text's segments before, inside and after a focused range. */
export interface FocusSegments {
  pre: MaskSegment[];
  mid: MaskSegment[];
  post: MaskSegment[];
}

/** focusSegments cuts maskSegments at a range of string indexes; a placeholder is never cut, it goes where it overlaps. */
export function focusSegments(text: string, masks: MaskSpan[] | null | undefined, range: [number, number] | null): FocusSegments {
  const out: FocusSegments = { pre: [], mid: [], post: [] };
  const segs = maskSegments(text, masks);
  if (!range) {
    out.pre = segs;
    return out;
  }
  const [from, to] = range;
  let i = 0;
  for (const seg of segs) {
    const a = i;
    const b = i + seg.text.length;
    i = b;
    if (seg.masked) {
      (b <= from ? out.pre : a >= to ? out.post : out.mid).push(seg);
      continue;
    }
    const cuts = [
      { part: out.pre, lo: a, hi: Math.min(b, from) },
      { part: out.mid, lo: Math.max(a, from), hi: Math.min(b, to) },
      { part: out.post, lo: Math.max(a, to), hi: b },
    ];
    for (const c of cuts) if (c.hi > c.lo) c.part.push({ text: seg.text.slice(c.lo - a, c.hi - a), masked: false });
  }
  return out;
}
