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
    ['settings.roots', 'Session folders'],
    ['nav.nope', 'nav.nope'],
    ['nav', 'nav'],
  ])('%s', (key, want) => {
    expect(lookup(en, key)).toBe(want);
  });
});

describe('locale store', () => {
  it('switches the catalogue', () => {
    locale.set('zh');
    expect(get(t).nav.largest).toBe('最大结果');
    locale.set('en');
    expect(get(t).nav.largest).toBe('Largest results');
  });
  it('accepts only known languages', () => {
    expect(isLang('zh')).toBe(true);
    expect(isLang('fr')).toBe(false);
  });
});

import { fill, pick } from './index';

describe('fill and pick', () => {
  it('fills named values and leaves unknown ones visible', () => {
    expect(fill('{n} sessions', { n: 3 })).toBe('3 sessions');
    expect(fill('{a} and {b}', { a: 'x' })).toBe('x and {b}');
  });
  it('picks a code in either spelling and shows unknown codes as themselves', () => {
    expect(pick(en.status, 'within-budget')).toBe('within budget');
    expect(pick(zh.status, 'notice_only')).toBe('仅提示');
    expect(pick(en.reasons, 'credential-parameter')).toMatch(/credential list/);
    expect(pick(en.reasons, 'brand-new-reason')).toBe('brand-new-reason');
  });
  it('explains every status and link reason in both languages, differently', () => {
    for (const code of Object.keys(en.status.explain)) {
      expect(pick(zh.status.explain, code)).not.toBe(pick(en.status.explain, code));
    }
    for (const code of Object.keys(en.reasons)) {
      expect(pick(zh.reasons, code)).not.toBe(pick(en.reasons, code));
    }
  });
});

import { translate } from './index';

describe('diagnostics', () => {
  const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  it('use the same placeholders in both languages', () => {
    for (const [code, text] of Object.entries(en.diagnostic)) {
      expect(placeholders(pick(zh.diagnostic, code)), code).toEqual(placeholders(text));
    }
  });
  it('are worded from their code and params, singular where the count is one', () => {
    const d = { code: 'unknown-line-type', params: { type: 'brand-new', count: '312', firstLine: '7' }, message: 'x' };
    expect(translate(en.diagnostic, d, d.message)).toBe('unknown line type "brand-new": 312 lines skipped, the first at line 7');
    expect(translate(zh.diagnostic, d, d.message)).toBe('未知行类型 "brand-new"：跳过 312 行，第一行为第 7 行');
    expect(translate(en.diagnostic, { ...d, params: { ...d.params, count: '1' } }, d.message)).toBe('unknown line type "brand-new": 1 line skipped');
  });
  it('fall back to the English message for a code the catalogue does not know', () => {
    expect(translate(zh.diagnostic, { code: 'from-a-newer-build', params: {} }, 'as Go wrote it')).toBe('as Go wrote it');
    expect(translate(zh.diagnostic, {}, 'an old row')).toBe('an old row');
  });
});

import { placeholders } from './index';
import type { Holding, Localized } from './en';

describe('placeholders', () => {
  it('finds each {word} once, and nothing that is not a word between braces', () => {
    expect(placeholders('{n} of {total}, {n} again')).toEqual(['n', 'total']);
    expect(placeholders('paste [{"type": "text"}] or {}')).toEqual([]);
  });
  it('every placeholder of an English template is in its Chinese template', () => {
    for (const k of keys(en)) {
      const want = placeholders(lookup(en, k)).sort();
      expect(placeholders(lookup(zh, k)).sort(), k).toEqual(want);
    }
  });
  it('are checked by the type checker too', () => {
    // The type-level rule the build applies to zh.ts (svelte-check fails on these lines if it stops holding).
    const ok: Holding<'{n} of {total}'> = '共 {total} 中的 {n}';
    // @ts-expect-error a translation that drops {total} does not type-check
    const dropped: Holding<'{n} of {total}'> = '{n} 个';
    // @ts-expect-error a misspelt placeholder does not type-check
    const misspelt: Localized<{ a: { b: 'hi {name}' } }> = { a: { b: '你好 {nmae}' } };
    const plain: Holding<'no holes [{"type": 1}]'> = 'anything';
    expect([ok, dropped, misspelt, plain].length).toBe(4);
  });
});

describe('translate', () => {
  const section = { 'session-invalid': 'Session {id} is not valid.', result_gone: 'The result moved.' };
  it.each([
    [{ code: 'session-invalid', params: { id: 4 } }, 'Session 4 is not valid.'],
    [{ code: 'result-gone' }, 'The result moved.'],
    [{ code: 'result_gone', params: null }, 'The result moved.'],
    [{ code: 'brand-new', params: { file: '/a', line: 3 } }, 'brand-new (file=/a, line=3)'],
    [{ code: 'brand-new' }, 'brand-new'],
  ])('%j', (c, want) => {
    expect(translate(section, c)).toBe(want);
  });
  it('takes the fallback it is given for a code the section does not know, and only then', () => {
    expect(translate(section, { code: 'brand-new', params: { line: 3 } }, 'as Go said it')).toBe('as Go said it');
    expect(translate(section, { code: 'session-invalid', params: { id: 4 } }, 'as Go said it')).toBe('Session 4 is not valid.');
    expect(translate({ ...section, 'session-invalid-one': 'One session is not valid.' }, { code: 'session-invalid', params: { count: 1 } })).toBe(
      'One session is not valid.',
    );
  });
});
