import { LANGUAGE_TAG, LANGUAGES, type Lang } from '../contract/languages';
import FRAME from '../generated/messages/en-frame';
import type en from './messages/en.json';
import { html, raw, type SafeHtml } from './markup';
import { DATE_FORMATS as ENGLISH_DATES } from '../generated/date-formats/en';
import { dateFormatIn, writeInstant, type DateFormat } from './instants';
import { acceptedLanguage, isLang } from './negotiation';

/**
 * The words of the pages, from one ICU MessageFormat catalogue per language
 * (functions/pages/messages/), compiled at build time into one module per language
 * (functions/generated/messages/). This module holds the words every page needs (the frame,
 * the lookup form, problems, times) in English; page-languages.ts holds every catalogue for the
 * pages that speak several languages (/verify, /trust-receipt), so an English-only page carries
 * only its frame. Machine values (state codes, dispositions, check names) stay as they are; the
 * words around them are translated.
 */
export { LANGUAGES, type Lang };
export type MessageKey = keyof typeof en;
/** A compiled catalogue: one function per key. */
export type CompiledMessages = Record<MessageKey, (args?: Record<string, unknown>) => string>;
/** The keys of the page frame (FRAME_KEY_PREFIXES in lib/contract/generate-messages.ts). */
export type FrameKey = keyof typeof FRAME & MessageKey;

/** The page language and the locale that formats its dates (the visitor's region when they sent one). */
export interface Locale {
  lang: Lang;
  /** A BCP 47 tag for Intl, e.g. de-AT from Accept-Language, or the bare language. */
  formatLocale: string;
}

export const DEFAULT_LOCALE: Locale = { lang: 'en', formatLocale: 'en' };

/** True for a key of the page frame's words (every catalogue has them, held by a test). */
export const isFrameKey = (key: string): key is FrameKey => Object.hasOwn(FRAME, key);

function localeOf(tag: string): Locale | null {
  if (!LANGUAGE_TAG.test(tag)) return null;
  const primary = tag.split('-')[0].toLowerCase();
  if (!isLang(primary)) return null;
  let formatLocale: string = primary;
  try {
    formatLocale = Intl.getCanonicalLocales(tag)[0] ?? primary;
  } catch {
    // An ill-formed region or variant: the bare language still formats.
  }
  return { lang: primary, formatLocale };
}

/**
 * The page's locale: `?lang=` first (the visible switcher; a region there, such as de-AT, also
 * sets the date format), then the language Accept-Language asks for (negotiation.ts
 * acceptedLanguage: the language only, so a shared cache keeps one copy per language), then
 * English.
 */
export function negotiateLocale(acceptLanguage: string | undefined, langParam: string | undefined): Locale {
  if (langParam) {
    const chosen = localeOf(langParam.trim());
    if (chosen) return chosen;
  }
  const lang = acceptedLanguage(acceptLanguage);
  return { lang, formatLocale: lang };
}

type Args = Record<string, SafeHtml | string | number | boolean>;

/** Messages of one language: `t` for markup (arguments escaped), `t.text` for plain text (script data, headers). */
export interface Words<Key extends string> {
  (key: Key, args?: Args): SafeHtml;
  text(key: Key, args?: Record<string, string | number>): string;
  locale: Locale;
  /** An instant in the visitor's locale, in UTC, the zone stated. */
  instant(iso: string): string;
}

/** Every word of a page that speaks several languages. */
export type Translator = Words<MessageKey>;
/** The words of the page frame: what the shared frame, form and problem code may ask for. */
export type FrameWords = Words<FrameKey>;

/** The words of one locale from its compiled catalogue (or the frame's part of it). */
export function translatorOf<Key extends string = MessageKey>(
  locale: Locale,
  messages: Record<Key, (args?: Record<string, unknown>) => string>,
  dates: DateFormat,
): Words<Key> {
  // Catalogue texts are our own markup (like `raw`); every argument is escaped unless it is SafeHtml.
  const t = ((key: Key, args: Args = {}) => {
    const escaped: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(args)) escaped[name] = typeof value === 'number' ? value : html`${value as SafeHtml | string}`.value;
    return raw(messages[key](escaped));
  }) as Words<Key>;
  t.text = (key, args = {}) => messages[key](args);
  t.locale = locale;
  t.instant = (iso) => writeInstant(iso, dates);
  return t;
}

/** The frame's words in English: the default of every page. */
export const englishFrame: FrameWords = translatorOf(
  DEFAULT_LOCALE,
  FRAME as unknown as Record<FrameKey, (args?: Record<string, unknown>) => string>,
  dateFormatIn(ENGLISH_DATES, DEFAULT_LOCALE.formatLocale),
);

