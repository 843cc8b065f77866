import DE from '../generated/messages/de';
import EN from '../generated/messages/en';
import ES from '../generated/messages/es';
import FR from '../generated/messages/fr';
import { DATE_FORMATS as DE_DATES } from '../generated/date-formats/de';
import { DATE_FORMATS as EN_DATES } from '../generated/date-formats/en';
import { DATE_FORMATS as ES_DATES } from '../generated/date-formats/es';
import { DATE_FORMATS as FR_DATES } from '../generated/date-formats/fr';
import { MESSAGE_KEYS } from '../generated/messages/keys';
import { dateFormatIn } from './instants';
import { DEFAULT_LOCALE, negotiateLocale, translatorOf, type CompiledMessages, type Lang, type Locale, type MessageKey, type Translator } from './i18n';

/**
 * Every language of the person-facing pages (/verify and /trust-receipt), for the functions that
 * serve them: the compiled catalogues, the translator of a request, and the language switcher.
 */
/** A compiled catalogue as generated: its messages in the order of MESSAGE_KEYS, plain text as a string. */
type CompiledList = ReadonlyArray<string | ((args?: Record<string, unknown>) => string)>;
const CATALOGUES = { en: EN, de: DE, fr: FR, es: ES } as unknown as Record<Lang, () => CompiledList>;
const DATES = { en: EN_DATES, de: DE_DATES, fr: FR_DATES, es: ES_DATES };
const built = new Map<Lang, CompiledMessages>();

/** A language's compiled catalogue, built the first time a page asks for it. */
function messagesOf(lang: Lang): CompiledMessages {
  let messages = built.get(lang);
  if (!messages) {
    const list = CATALOGUES[lang]();
    messages = Object.fromEntries(MESSAGE_KEYS.map((key, i) => {
      const message = list[i];
      return [key, typeof message === 'string' ? () => message : message];
    })) as CompiledMessages;
    built.set(lang, messages);
  }
  return messages;
}

/** Every word in English: the default of the pages that speak several languages. */
export const english: Translator = translatorOf(DEFAULT_LOCALE, messagesOf('en'), dateFormatIn(EN_DATES, 'en'));

/** True for a key of the catalogues (all have the same keys, held by a test). */
export const isMessageKey = (key: string): key is MessageKey => Object.hasOwn(messagesOf('en'), key);

const translators = new Map<string, Translator>([[`en|${english.locale.formatLocale}`, english]]);

export function translator(locale: Locale): Translator {
  const key = `${locale.lang}|${locale.formatLocale}`;
  let t = translators.get(key);
  if (!t) {
    t = translatorOf(locale, messagesOf(locale.lang), dateFormatIn(DATES[locale.lang], locale.formatLocale));
    // Locales come from requests: remember a bounded number.
    if (translators.size < 64) translators.set(key, t);
  }
  return t;
}

/** The words for a request: ?lang=, then Accept-Language, then English. */
export const requestTranslator = (acceptLanguage: string | undefined, langParam: string | undefined): Translator =>
  translator(negotiateLocale(acceptLanguage, langParam));

export { languageLinks } from './language-links';
