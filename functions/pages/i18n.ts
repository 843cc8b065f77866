import { LANGUAGE_TAG, type Lang } from '../contract/languages';
import FRAME from '../generated/messages/en-frame';
import type en from './messages/en.json';
import { html, raw, type SafeHtml } from './markup';
import { DATE_FORMATS as ENGLISH_DATES } from '../generated/date-formats/en';
import { dateFormatIn, dateOnly, writeInstant, type DateFormat } from './instants';
import { acceptedLanguage, isLang } from './negotiation';

/**
 * The words of the pages, from one ICU MessageFormat catalogue per language
 * (functions/pages/messages/), compiled at build time into one module per language
 * (functions/generated/messages/). This module holds the words every page needs (the frame,
 * the lookup form, problems, times) in English; page-languages.ts holds every catalogue for the
 * pages that speak several languages (/verify, /trust-receipt), landing-languages.ts the landing's
 * words, so an English-only page carries only its frame. Every word a page in several languages
 * shows (states, kinds, parties, checks) comes from its catalogue; the machine codes behind them
 * are shown apart, as codes (presentation.ts).
 */
export type { Lang };
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
  /** A calendar date (YYYY-MM-DD, or the UTC date of an instant) in the visitor's locale. */
  date(isoDate: string): string;
}

/** Every word of a page that speaks several languages. */
export type Translator = Words<MessageKey>;
/** The words of the page frame: what the shared frame, form and problem code may ask for. */
export type FrameWords = Words<FrameKey>;

/**
 * The words of one locale from its compiled catalogue (or a part of it). A page that writes no
 * date (the landing) passes no date format, so its function carries no date table; asking it for a
 * date then fails loudly rather than writing one in another language's way.
 */
export function translatorOf<Key extends string = MessageKey>(
  locale: Locale,
  messages: Record<Key, (args?: Record<string, unknown>) => string>,
  dates: DateFormat | null,
): Words<Key> {
  // Catalogue texts are our own markup (like `raw`); every argument is escaped unless it is SafeHtml.
  const t = ((key: Key, args: Args = {}) => {
    const escaped: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(args)) escaped[name] = typeof value === 'number' ? value : html`${value as SafeHtml | string}`.value;
    return raw(messages[key](escaped));
  }) as Words<Key>;
  t.text = (key, args = {}) => messages[key](args);
  t.locale = locale;
  if (dates) {
    t.instant = (iso) => writeInstant(iso, dates);
    const days = dateOnly(dates);
    t.date = (isoDate) => writeInstant(isoDate.length === 10 ? `${isoDate}T00:00:00.000Z` : isoDate, days);
  } else {
    t.instant = t.date = () => {
      throw new Error(`the words of this page (${locale.lang}) were built without a date format`);
    };
  }
  return t;
}

/** The frame's words in English: the default of every page. */
export const englishFrame: FrameWords = translatorOf(
  DEFAULT_LOCALE,
  FRAME as unknown as Record<FrameKey, (args?: Record<string, unknown>) => string>,
  dateFormatIn(ENGLISH_DATES, DEFAULT_LOCALE.formatLocale),
);

