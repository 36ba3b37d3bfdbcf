import { describe, expect, it } from 'vitest';
import { guardNavigatorLanguage, usableTag } from './locale';

describe('usableTag', () => {
  it.each([
    ['en-US', 'en-US'],
    ['zh-CN', 'zh-CN'],
    ['C', 'en-US'],
    ['POSIX', 'en-US'],
    ['en_US.UTF-8', 'en-US'],
    ['zh_CN.UTF-8@pinyin', 'zh-CN'],
    ['C.UTF-8', 'en-US'],
    ['', 'en-US'],
    [undefined, 'en-US'],
  ])('%s -> %s', (tag, want) => {
    expect(usableTag(tag)).toBe(want);
    expect(() => new Intl.NumberFormat(usableTag(tag))).not.toThrow();
  });
});

describe('guardNavigatorLanguage', () => {
  it('replaces a tag Intl rejects, so a library formatting with it loads', () => {
    const nav = { language: 'C' } as unknown as Navigator;
    expect(() => new Intl.NumberFormat(nav.language)).toThrow(RangeError);
    guardNavigatorLanguage(nav);
    expect(nav.language).toBe('en-US');
    expect(() => new Intl.NumberFormat(nav.language)).not.toThrow();
  });
  it('leaves a usable tag alone', () => {
    const nav = { language: 'zh-CN' } as unknown as Navigator;
    guardNavigatorLanguage(nav);
    expect(nav.language).toBe('zh-CN');
  });
});
