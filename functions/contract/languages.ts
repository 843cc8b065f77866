/** The languages the person-facing pages speak; English is the default. */
export const LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type Lang = (typeof LANGUAGES)[number];

/** Each language's name in itself, as the language switcher shows it. */
export const LANGUAGE_NAMES: Record<Lang, string> = { en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español' };

/** A language tag as `?lang=` and Accept-Language carry it (RFC 5646 shape, case-insensitive). */
export const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;
