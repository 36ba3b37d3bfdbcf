import { describe, expect, it } from 'vitest';
import { byteToIndex, focusRange, focusSegments, maskedOffset, maskSegments, PLACEHOLDER } from './masks';

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

describe('focus', () => {
  // Real text: "see https://h.example/?token=SECRET ok", the value masked.
  const real = 'see https://h.example/?token=SECRET ok';
  const vs = real.indexOf('SECRET');
  const shown = real.replace('SECRET', PLACEHOLDER);
  const masks = [{ start: vs, end: vs + 6, at: vs, kind: 'parameter', parameter: 'token' }];
  const urlStart = real.indexOf('https');
  const urlEnd = vs + 6;

  it('maps a link range of the real text to the masked text, placeholder included', () => {
    const r = focusRange(shown, masks, urlStart, urlEnd);
    expect(r).not.toBeNull();
    expect(shown.slice(r![0], r![1])).toBe('https://h.example/?token=' + PLACEHOLDER);
  });

  it('counts bytes, not UTF-16 units, and a kept piece from where it starts', () => {
    const text = '日本 https://a.example/x 終';
    const start = new TextEncoder().encode('日本 ').length;
    const end = start + 'https://a.example/x'.length;
    const r = focusRange(text, [], start, end)!;
    expect(text.slice(r[0], r[1])).toBe('https://a.example/x');
    const piece = text.slice(3);
    const r2 = focusRange(piece, [], start, end, start)!;
    expect(piece.slice(r2[0], r2[1])).toBe('https://a.example/x');
  });

  it('is null for a range that is not shown', () => {
    expect(focusRange(shown, masks, -1, -1)).toBeNull();
    expect(focusRange(shown, masks, 10, 20, 40)).toBeNull();
    expect(focusRange(shown, masks, 30, 40, 0, 20)).toBeNull();
  });

  it('cuts segments at the range, never inside a placeholder', () => {
    const f = focusSegments(shown, masks, focusRange(shown, masks, urlStart, urlEnd));
    expect(f.pre.map((s) => s.text).join('')).toBe('see ');
    expect(f.mid.map((s) => s.text).join('')).toBe('https://h.example/?token=' + PLACEHOLDER);
    expect(f.mid.at(-1)).toEqual({ text: PLACEHOLDER, masked: true });
    expect(f.post.map((s) => s.text).join('')).toBe(' ok');
    const whole = focusSegments(shown, masks, null);
    expect(whole.mid).toEqual([]);
    expect(whole.pre.map((s) => s.text).join('')).toBe(shown);
  });
});
