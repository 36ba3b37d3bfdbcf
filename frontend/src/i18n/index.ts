import { derived, writable } from 'svelte/store';
import { en, type Messages } from './en';
import { zh } from './zh';

export type Lang = 'en' | 'zh';

export const catalogues: Record<Lang, Messages> = { en, zh };

export function isLang(v: unknown): v is Lang {
  return v === 'en' || v === 'zh';
}

/** lookup resolves a dotted key ("nav.sessions") in a catalogue; an unknown key returns itself so it shows up in review. */
export function lookup(messages: Messages, key: string): string {
  let node: unknown = messages;
  for (const part of key.split('.')) {
    if (node && typeof node === 'object' && part in (node as Record<string, unknown>)) {
      node = (node as Record<string, unknown>)[part];
    } else {
      return key;
    }
  }
  return typeof node === 'string' ? node : key;
}

/** locale is the UI language; the settings store persists it through Go. */
export const locale = writable<Lang>('en');

/** t is the current catalogue, used as $t.nav.sessions in components. */
export const t = derived(locale, (l) => catalogues[l]);

/** Params are the values a template is filled with; they are text, never markup. */
export type Params = Record<string, string | number | boolean>;

/** placeholderPattern finds a template's placeholders: {name}, a word between braces. */
export const placeholderPattern = /\{(\w+)\}/g;

/** fill puts values into a catalogue template ("{n} sessions"); values are text, never markup. */
export function fill(template: string, vars: Params): string {
  return template.replace(placeholderPattern, (m, k: string) => (k in vars ? String(vars[k]) : m));
}

/** placeholders lists the names a template fills, in order, each once. */
export function placeholders(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(placeholderPattern), (m) => m[1]))];
}

/**
 * Coded is what Go sends where a screen shows a sentence: a stable code and
 * its parameters (the app's bound errors, the indexer's diagnostics). The
 * screen translates it with translate, so both languages read it.
 */
export interface Coded {
  code: string;
  params?: Params | null;
}

/**
 * translate renders a coded message with the template its section holds for
 * the code (e.g. translate($t.errors.codes, err)), its singular "-one" form
 * where params.count is "1". A code the section does not know (or no code)
 * reads as fallback when one is given (a diagnostic passes Go's English
 * message), else as the code with its parameters, so a new code is never
 * silently hidden. Values are text, never markup.
 */
export function translate(section: Record<string, unknown>, c: { code?: string; params?: Params | null }, fallback?: string): string {
  const params = c.params ?? {};
  const template = c.code ? ((String(params.count) === '1' && codeText(section, c.code + '-one')) || codeText(section, c.code)) : undefined;
  if (template !== undefined) return fill(template, params);
  if (fallback !== undefined) return fallback;
  const rest = Object.entries(params)
    .map(([k, x]) => `${k}=${String(x)}`)
    .join(', ');
  return rest ? `${c.code ?? ''} (${rest})` : (c.code ?? '');
}

/** pick looks up a code (a status, a reason) in a catalogue section; unknown codes come back as themselves so nothing is hidden. */
export function pick(section: Record<string, unknown>, code: string): string {
  return codeText(section, code) ?? code;
}

/** codeText is a section's text for a code, written with dashes or underscores. */
function codeText(section: Record<string, unknown>, code: string): string | undefined {
  const v = section[code] ?? section[code.replace(/-/g, '_')];
  return typeof v === 'string' ? v : undefined;
}
export type { Messages } from './en';
