import { LANGUAGE_NAMES, LANGUAGES, type Lang } from '../contract/languages';
import type { Locale } from './i18n';

export interface LanguageLink {
  lang: Lang;
  /** The language's name in itself (Deutsch, Français). */
  name: string;
  href: string;
  current: boolean;
}

/** The switcher's links: this page in each language, each named in its own language. */
export function languageLinks(t: { locale: Locale }, inLanguage: (lang: Lang) => string): LanguageLink[] {
  return LANGUAGES.map((lang) => ({ lang, name: LANGUAGE_NAMES[lang], href: inLanguage(lang), current: lang === t.locale.lang }));
}
