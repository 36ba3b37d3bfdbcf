// The webview's language tag, made one that Intl accepts. WebKitGTK takes
// navigator.language from the process locale, which is "C" (or "POSIX",
// "en_US.UTF-8") when LANG is unset or plain, as on a fresh server or under
// a CI runner; Intl rejects those tags with a RangeError, and a library that
// formats with navigator.language at load (uPlot does) then stops the whole
// bundle before the window paints anything. The app's own figures name
// their locale; this only keeps libraries from failing on the webview's.

/** usableTag returns tag when Intl accepts it, else its POSIX locale read as a BCP 47 tag, else en-US. */
export function usableTag(tag: string | undefined): string {
  // "POSIX" passes as a BCP 47 language subtag, but names no language.
  const base = (tag ?? '').split(/[.@]/)[0];
  if (base === 'C' || base === 'POSIX') return 'en-US';
  for (const t of [tag, posixToBCP47(tag)]) {
    if (!t) continue;
    try {
      return Intl.getCanonicalLocales(t)[0] ?? 'en-US';
    } catch {
      /* not a BCP 47 tag */
    }
  }
  return 'en-US';
}

/** posixToBCP47 reads "en_US.UTF-8@euro" as "en-US". */
function posixToBCP47(tag: string | undefined): string {
  return (tag ?? '').split(/[.@]/)[0].replace(/_/g, '-');
}

/** guardNavigatorLanguage replaces navigator.language with a usable tag when Intl would reject it. */
export function guardNavigatorLanguage(nav: Navigator | undefined = globalThis.navigator): void {
  if (!nav) return;
  const tag = usableTag(nav.language);
  if (tag === nav.language) return;
  try {
    Object.defineProperty(nav, 'language', { value: tag, configurable: true });
  } catch {
    /* a read-only navigator: nothing better to do */
  }
}

guardNavigatorLanguage();
