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
 * the code (e.g. translate($t.errors.codes, err)). An unknown code is shown
 * as itself with its parameters, so a new code is never silently hidden.
 */
export function translate(section: Record<string, unknown>, c: Coded): string {
  const params = c.params ?? {};
  const v = section[c.code] ?? section[c.code.replace(/-/g, '_')];
  if (typeof v === 'string') return fill(v, params);
  const rest = Object.entries(params)
    .map(([k, x]) => `${k}=${String(x)}`)
    .join(', ');
  return rest ? `${c.code} (${rest})` : c.code;
}

/** pick looks up a code (a status, a reason) in a catalogue section; unknown codes come back as themselves so nothing is hidden. */
export function pick(section: Record<string, unknown>, code: string): string {
  const v = section[code] ?? section[code.replace(/-/g, '_')];
  return typeof v === 'string' ? v : code;
}
export type { Messages } from './en';

/** DiagnosticLike is what diagnosticText needs of a Go diagnostic. */
export interface DiagnosticLike {
  code?: string;
  params?: Record<string, string>;
  message: string;
}

/**
 * diagnosticText words an indexer diagnostic in the UI language from its stable code and params; a code this
 * catalogue does not know (a newer Go build) shows Go's English message. Values are text, never markup.
 */
export function diagnosticText(messages: Messages, d: DiagnosticLike): string {
  const section = messages.diagnostic as Record<string, string>;
  const params = d.params ?? {};
  const code = d.code && params.count === '1' && section[d.code + '-one'] ? d.code + '-one' : d.code;
  const template = code ? section[code] : undefined;
  return template ? fill(template, params) : d.message;
}
