import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { en } from './en';
import { zh } from './zh';
import { isLang, locale, lookup, t } from './index';

function keys(o: object, prefix = ''): string[] {
  return Object.entries(o).flatMap(([k, v]) =>
    typeof v === 'string' ? [prefix + k] : keys(v as object, prefix + k + '.'),
  );
}

describe('catalogues', () => {
  it('have the same keys in English and Chinese', () => {
    expect(keys(zh).sort()).toEqual(keys(en).sort());
  });
  it('have no empty strings', () => {
    for (const k of keys(zh)) expect(lookup(zh, k)).not.toBe('');
  });
  it('translate the navigation', () => {
    expect(zh.nav.sessions).not.toBe(en.nav.sessions);
  });
});

describe('lookup', () => {
  it.each([
    ['nav.sessions', 'Sessions'],
    ['overview.roots', 'Session folders'],
    ['nav.nope', 'nav.nope'],
    ['nav', 'nav'],
  ])('%s', (key, want) => {
    expect(lookup(en, key)).toBe(want);
  });
});

describe('locale store', () => {
  it('switches the catalogue', () => {
    locale.set('zh');
    expect(get(t).nav.overview).toBe('概览');
    locale.set('en');
    expect(get(t).nav.overview).toBe('Overview');
  });
  it('accepts only known languages', () => {
    expect(isLang('zh')).toBe(true);
    expect(isLang('fr')).toBe(false);
  });
});
