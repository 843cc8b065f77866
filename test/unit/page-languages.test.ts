import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type Token } from '@messageformat/parser';
import fc from 'fast-check';
import { DATE_LOCALES, generateDateFormats, INSTANT_OPTIONS } from '../../lib/contract/generate-date-formats';
import { LANGUAGES } from '../../functions/contract/languages';
import { negotiateLocale } from '../../functions/pages/i18n';
import { html } from '../../functions/pages/markup';
import { isMessageKey, translator } from '../../functions/pages/page-languages';
import { CATALOGUES, catalogueMismatches, generateMessages } from '../../lib/contract/generate-messages';

describe('message catalogues', () => {
  it('exist for every page language and have exactly the English keys', () => {
    expect(Object.keys(CATALOGUES).sort()).toEqual([...LANGUAGES].sort());
    expect(catalogueMismatches()).toEqual([]);
  });

  it('fail the build when a catalogue misses a key or adds one', () => {
    const { 'form.submit': _dropped, ...incomplete } = CATALOGUES.de;
    expect(catalogueMismatches({ ...CATALOGUES, de: incomplete })).toEqual(["de lacks 'form.submit'"]);
    expect(() => generateMessages({ ...CATALOGUES, fr: { ...CATALOGUES.fr, 'extra.key': 'x' } })).toThrow("fr has 'extra.key', which en does not");
  });

  it('use the same arguments in every language', () => {
    // The arguments a message reads (a select's or plural's own, and those inside its cases), from the ICU parser.
    const argumentsOf = (text: string): string[] => {
      const names = new Set<string>();
      const walk = (tokens: readonly Token[]) => {
        for (const token of tokens) {
          if (token.type === 'argument' || token.type === 'function') names.add(token.arg);
          if (token.type === 'plural' || token.type === 'select' || token.type === 'selectordinal') {
            names.add(token.arg);
            for (const c of token.cases) walk(c.tokens);
          }
        }
      };
      walk(parse(text, { strict: true }));
      return [...names].sort();
    };
    for (const [key, english] of Object.entries(CATALOGUES.en)) {
      for (const lang of LANGUAGES) expect([lang, key, argumentsOf(CATALOGUES[lang][key])]).toEqual([lang, key, argumentsOf(english)]);
    }
  });

  it('use CLDR plural rules per language', () => {
    expect(translator({ lang: 'en', formatLocale: 'en' }).text('timeline.caption', { count: 1, older: 'no' })).toBe('1 entry, newest first.');
    expect(translator({ lang: 'de', formatLocale: 'de' }).text('timeline.caption', { count: 2, older: 'yes' })).toBe('2 Einträge, neueste zuerst, ältere Einträge nicht gezeigt.');
    // French counts 0 and 1 as singular.
    expect(translator({ lang: 'fr', formatLocale: 'fr' }).text('duration.days', { n: 0 })).toBe('0 jour');
    expect(translator({ lang: 'es', formatLocale: 'es' }).text('duration.hours', { n: 1 })).toBe('1 hora');
  });

  it('escape arguments but keep their own markup', () => {
    const t = translator({ lang: 'en', formatLocale: 'en' });
    expect(t('receipt.intro', { reference: '<b>&', at: html`<time>today</time>` }).value).toBe('What this service holds about reference <code>&lt;b&gt;&amp;</code>, as of <time>today</time>.');
    expect(isMessageKey('problem.NOT_FOUND')).toBe(true);
    expect(isMessageKey('problem.toString')).toBe(false);
  });

  it('write instants in the visitor’s locale, in UTC, saying so', () => {
    const at = '2026-03-04T05:06:07.000Z';
    expect(translator({ lang: 'en', formatLocale: 'en-GB' }).instant(at)).toBe('4 Mar 2026, 05:06 UTC');
    expect(translator({ lang: 'de', formatLocale: 'de' }).instant(at)).toBe('4. März 2026, 05:06 UTC');
    expect(translator({ lang: 'fr', formatLocale: 'fr' }).instant(at)).toBe('4 mars 2026, 05:06 UTC');
    expect(translator({ lang: 'es', formatLocale: 'es' }).instant(at)).toBe('4 mar 2026, 05:06 UTC');
  });
});

describe('negotiateLocale', () => {
  it.each([
    [undefined, undefined, 'en', 'en'],
    // From Accept-Language, the language only (one copy per language in a shared cache); a region comes with ?lang=.
    ['de-AT,de;q=0.9,en;q=0.8', undefined, 'de', 'de'],
    [undefined, 'de-AT', 'de', 'de-AT'],
    ['it-IT,it;q=0.9,fr;q=0.8,en;q=0.5', undefined, 'fr', 'fr'],
    ['en;q=0.4,es;q=0.9', undefined, 'es', 'es'],
    ['*', undefined, 'en', 'en'],
    ['de;q=0', undefined, 'en', 'en'],
    ['es-MX', 'fr', 'fr', 'fr'],
    ['es-MX', 'it', 'es', 'es'],
    ['EN-GB;q=0.5, *;q=0.9, xx-YY', undefined, 'en', 'en'],
    ['de', 'EN-gb', 'en', 'en-GB'],
    ['garbage;;;,,q=1', '<script>', 'en', 'en'],
  ])('Accept-Language %p and ?lang=%p give %s (%s)', (accept, param, lang, formatLocale) => {
    expect(negotiateLocale(accept, param)).toEqual({ lang, formatLocale });
  });
});

describe('instants written from the build-time table', () => {
  it('are exactly what Intl writes, for every locale of the table and instants across years, months, days and hours (property)', () => {
    const formats = new Map(DATE_LOCALES.map((locale) => [locale, new Intl.DateTimeFormat(locale, INSTANT_OPTIONS)]));
    fc.assert(
      fc.property(fc.constantFrom(...DATE_LOCALES), fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2090-12-31T23:59:59Z'), noInvalidDate: true }), (locale, date) => {
        const [lang] = locale.split('-') as ['en' | 'de' | 'fr' | 'es'];
        expect(translator({ lang, formatLocale: locale }).instant(date.toISOString())).toBe(formats.get(locale)!.format(date));
      }),
      { seed: 20261123, numRuns: 3000 },
    );
  });

  it('write a calendar date (a claim such as purchasedOn) as Intl writes the date alone, for every locale of the table (property)', () => {
    const dateOnly = { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' } as const;
    const formats = new Map(DATE_LOCALES.map((locale) => [locale, new Intl.DateTimeFormat(locale, dateOnly)]));
    fc.assert(
      fc.property(fc.constantFrom(...DATE_LOCALES), fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2090-12-31T00:00:00Z'), noInvalidDate: true }), (locale, date) => {
        const [lang] = locale.split('-') as ['en' | 'de' | 'fr' | 'es'];
        const day = date.toISOString().slice(0, 10);
        expect(translator({ lang, formatLocale: locale }).date(day)).toBe(formats.get(locale)!.format(new Date(`${day}T00:00:00Z`)));
      }),
      { seed: 20261126, numRuns: 1000 },
    );
  });

  it('fall back to the language for a region not in the table', () => {
    const at = '2026-03-04T17:06:00.000Z';
    expect(translator({ lang: 'de', formatLocale: 'de-BE' }).instant(at)).toBe(translator({ lang: 'de', formatLocale: 'de' }).instant(at));
    expect(translator({ lang: 'en', formatLocale: 'en-ZA' }).instant(at)).toBe(translator({ lang: 'en', formatLocale: 'en' }).instant(at));
    expect(translator({ lang: 'en', formatLocale: 'en-GB' }).instant(at)).not.toBe(translator({ lang: 'en', formatLocale: 'en' }).instant(at));
  });

  it('are committed as the generator makes them (npm run generate)', () => {
    for (const [file, source] of generateDateFormats()) expect([file, readFileSync(path.join(__dirname, '../..', file), 'utf8')]).toEqual([file, source]);
  });
});
