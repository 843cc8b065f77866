import DE from '../generated/messages/landing-de';
import EN from '../generated/messages/landing-en';
import ES from '../generated/messages/landing-es';
import FR from '../generated/messages/landing-fr';
import { negotiateLocale, translatorOf, type FrameKey, type Lang, type MessageKey, type Words } from './i18n';

/**
 * The landing's words in every language: its own keys and the frame's only
 * (functions/generated/messages/landing-<lang>.ts, LANDING_KEY_PREFIXES in
 * lib/contract/generate-messages.ts), so the landing's function does not carry the receipts' words.
 * The landing writes no date, so it carries no date table either.
 */
export type LandingKey = FrameKey | Extract<MessageKey, `landing.${string}`>;
export type LandingWords = Words<LandingKey>;

type Catalogue = Record<LandingKey, (args?: Record<string, unknown>) => string>;
const CATALOGUES = { en: EN, de: DE, fr: FR, es: ES } as unknown as Record<Lang, () => Catalogue>;
const built = new Map<string, LandingWords>();

/** The landing's words for a request: ?lang=, then Accept-Language, then English (as every page that speaks several languages). */
export function landingWords(acceptLanguage: string | undefined, langParam: string | undefined): LandingWords {
  const locale = negotiateLocale(acceptLanguage, langParam);
  const key = `${locale.lang}|${locale.formatLocale}`;
  let t = built.get(key);
  if (!t) {
    t = translatorOf<LandingKey>(locale, CATALOGUES[locale.lang](), null);
    // Locales come from requests: remember a bounded number.
    if (built.size < 64) built.set(key, t);
  }
  return t;
}

