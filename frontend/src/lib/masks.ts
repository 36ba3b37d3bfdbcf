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
