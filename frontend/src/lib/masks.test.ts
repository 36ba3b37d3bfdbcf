import { describe, expect, it } from 'vitest';
import { byteToIndex, maskedOffset, maskSegments, PLACEHOLDER } from './masks';

const span = (at: number) => ({ start: 0, end: 0, at, kind: 'parameter', parameter: 'token' });

describe('masks', () => {
  it('maps UTF-8 byte offsets to string indexes across multi-byte text', () => {
    const s = 'é世🙂a';
    // bytes: é=2, 世=3, 🙂=4, a=1
    expect(byteToIndex(s, [0, 2, 5, 9, 10])).toEqual([0, 1, 2, 4, 5]);
  });

  it('cuts text at each placeholder Go reported, after multi-byte text', () => {
    const text = `世界 ?token=${PLACEHOLDER}&x=1 and ${PLACEHOLDER}`;
    const at1 = new TextEncoder().encode('世界 ?token=').length;
    const at2 = new TextEncoder().encode(`世界 ?token=${PLACEHOLDER}&x=1 and `).length;
    const segs = maskSegments(text, [span(at1), span(at2)]);
    expect(segs.map((s) => s.masked)).toEqual([false, true, false, true]);
    expect(segs.map((s) => s.text).join('')).toBe(text);
  });

  it('ignores a mask that does not point at a placeholder', () => {
    expect(maskSegments('plain text', [span(2)])).toEqual([{ text: 'plain text', masked: false }]);
    expect(maskSegments('', null)).toEqual([{ text: '', masked: false }]);
  });

  it('maps a real offset to the shown text as Go does', () => {
    // real: "a ?token=abcdef b" -> shown: "a ?token=[redacted] b"
    const masks = [{ start: 9, end: 15, at: 9, kind: 'parameter', parameter: 'token' }];
    expect(maskedOffset(masks, 2)).toBe(2);
    expect(maskedOffset(masks, 11)).toBe(9);
    expect(maskedOffset(masks, 16)).toBe(16 + PLACEHOLDER.length - 6);
    expect(maskedOffset(null, 5)).toBe(5);
  });
});
