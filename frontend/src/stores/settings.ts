import { get } from 'svelte/store';
import type { Bridge } from '../bridge';
import { isLang, locale, type Lang } from '../i18n';

/** SettingsStore persists the user's language through Go so it survives restarts. */
export function createSettingsStore(b: Bridge) {
  return {
    /** load applies the saved language; a failure keeps English and is logged. */
    async load(): Promise<void> {
      try {
        const s = await b.getSettings();
        if (isLang(s.language)) locale.set(s.language);
      } catch (e) {
        console.error('spillscope: GetSettings failed:', e);
      }
    },
    /** setLanguage switches at once and saves; if saving fails the switch stays for this window. */
    async setLanguage(lang: Lang): Promise<void> {
      locale.set(lang);
      document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
      await b.setLanguage(lang);
    },
    current(): Lang {
      return get(locale);
    },
  };
}
