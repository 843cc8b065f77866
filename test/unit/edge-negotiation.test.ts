import vm from 'node:vm';
import { parse } from 'acorn';
import fc from 'fast-check';
import { LANGUAGES } from '../../functions/contract/languages';
import { DATE_FORMATS as DE } from '../../functions/generated/date-formats/de';
import { DATE_FORMATS as EN } from '../../functions/generated/date-formats/en';
import { DATE_FORMATS as ES } from '../../functions/generated/date-formats/es';
import { DATE_FORMATS as FR } from '../../functions/generated/date-formats/fr';
import { negotiateLocale } from '../../functions/pages/i18n';
import { dateFormatIn } from '../../functions/pages/instants';
import { prefersHtml } from '../../functions/pages/negotiation';
import { FUNCTION_CODE_LIMIT_BYTES, negotiationFunctionCode, pageLocales } from '../../lib/stack/edge-negotiation';

/**
 * The edge's viewer-request function (lib/stack/edge-negotiation-function.js), run as CloudFront
 * runs it: its code as the template carries it, given a viewer request event, in a context of its
 * own. Whatever a browser sends, the origin must answer the normalised request as it would have
 * answered the original one, and the normalised headers must take few values (the cache key).
 */

type Headers = Record<string, { value: string; multiValue?: Array<{ value: string }> }>;
interface ViewerRequest {
  method: string;
  uri: string;
  querystring: Record<string, { value: string }>;
  headers: Headers;
}

const code = negotiationFunctionCode();
const handler = vm.runInNewContext(`${code}\n;handler`, {}) as (event: { request: ViewerRequest }) => ViewerRequest;

function viewerRequest(headers: Record<string, string | undefined>): ViewerRequest {
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = { value };
  return { method: 'GET', uri: '/trust-receipt/ORD-1', querystring: {}, headers: out };
}

const normalised = (headers: Record<string, string | undefined>) => {
  const request = handler({ request: viewerRequest(headers) });
  return { accept: request.headers.accept?.value, acceptLanguage: request.headers['accept-language']?.value };
};

const DATES = { en: EN, de: DE, fr: FR, es: ES };
/** What a page does with a locale: its language and the date format it writes instants in. */
const pageChoice = (acceptLanguage: string | undefined) => {
  const locale = negotiateLocale(acceptLanguage, undefined);
  return { lang: locale.lang, dates: dateFormatIn(DATES[locale.lang], locale.formatLocale) };
};

const LANGUAGE_TAGS = ['en', 'EN-us', 'en-GB', 'en-gb', 'de', 'de-AT', 'de-at', 'de-CH-1996', 'de-Latn-DE', 'DE', 'fr', 'fr-CA', 'fr-be', 'es', 'es-419', 'es-MX', 'es-ES', 'it', 'pt-BR', 'zh-Hant-TW', 'x-klingon', '*', 'en-US-u-ca-buddhist', 'de-DE', 'nl', '', 'de-', 'de--AT', 'fr-CA-', 'es-abcdefghi', 'de_AT', 'DE-ä'];
const QUALITIES = ['', ';q=0', ';q=0.5', ';q=1', ';q=0.123', ';q=1.5', ';q=abc', ';Q=0.9', ';level=1;q=0.2', ' ; q=0.7', ';q=0.0001'];
const acceptLanguage = fc.oneof(
  fc
    .tuple(fc.array(fc.tuple(fc.constantFrom(...LANGUAGE_TAGS), fc.constantFrom(...QUALITIES)), { maxLength: 6 }), fc.constantFrom(', ', ','))
    .map(([ranges, separator]) => ranges.map(([tag, q]) => `${tag}${q}`).join(separator)),
  fc.string({ maxLength: 40 }),
);
const MEDIA_RANGES = ['text/html', 'TEXT/HTML', 'application/xhtml+xml', 'application/xml', 'application/json', 'application/problem+json', '*/*', 'text/*', 'image/webp', ''];
const accept = fc.oneof(
  fc.array(fc.tuple(fc.constantFrom(...MEDIA_RANGES), fc.constantFrom(...QUALITIES)), { maxLength: 6 }).map((ranges) => ranges.map(([type, q]) => `${type}${q}`).join(',')),
  fc.string({ maxLength: 40 }),
);

describe('the edge normalises Accept and Accept-Language to what the origin acts on', () => {
  test('the code is ES5 (the CloudFront Functions runtime is not Node.js) and within the 10 KB a function may hold', () => {
    expect(() => parse(code, { ecmaVersion: 5 })).not.toThrow();
    expect(Buffer.byteLength(code)).toBeLessThanOrEqual(FUNCTION_CODE_LIMIT_BYTES);
    expect(code).not.toContain('__PAGE_LOCALES__');
    expect(code).not.toContain('__LANGUAGE_RANGE__');
  });

  test('any Accept-Language: the page picks the same language and date format from the normalised header', () => {
    fc.assert(
      fc.property(acceptLanguage, (header) => {
        expect(pageChoice(normalised({ 'accept-language': header }).acceptLanguage)).toEqual(pageChoice(header));
      }),
      { numRuns: 3000 },
    );
  });

  test('any Accept: the page prefers HTML (or problem details) for the normalised header exactly when it does for the original', () => {
    fc.assert(
      fc.property(accept, (header) => {
        expect(prefersHtml(normalised({ accept: header }).accept)).toBe(prefersHtml(header));
      }),
      { numRuns: 3000 },
    );
  });

  test('the key takes few values: two for Accept, one per page language (or none) for Accept-Language', () => {
    const locales = new Set(pageLocales());
    fc.assert(
      fc.property(accept, acceptLanguage, (a, l) => {
        const out = normalised({ accept: a, 'accept-language': l });
        expect(['text/html', 'application/json']).toContain(out.accept);
        if (out.acceptLanguage !== undefined) expect(locales.has(out.acceptLanguage)).toBe(true);
      }),
      { numRuns: 2000 },
    );
    // A region in the header does not change a page, so it is not kept: one copy a language.
    expect([...locales]).toEqual([...LANGUAGES].sort());
  });

  test('what is no language range is passed over at the edge and at the origin alike (found by a seeded run: `de-`)', () => {
    for (const header of ['de-', 'de--AT', 'fr-CA-', 'es-abcdefghi', 'de_AT', 'DE-ä', 'de-,fr', 'de-;q=1, es;q=0.5']) {
      const atTheEdge = normalised({ 'accept-language': header }).acceptLanguage;
      expect([header, pageChoice(atTheEdge).lang]).toEqual([header, pageChoice(header).lang]);
    }
    expect(pageChoice('de-').lang).toBe('en');
    expect(pageChoice('de-,fr').lang).toBe('fr');
    expect(pageChoice('de-;q=1, es;q=0.5').lang).toBe('es');
  });

  test('what browsers send, and nothing sent', () => {
    expect(normalised({ accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'accept-language': 'de-AT,de;q=0.9,en;q=0.8' })).toEqual({ accept: 'text/html', acceptLanguage: 'de' });
    expect(normalised({ accept: '*/*', 'accept-language': 'it-IT,it;q=0.9,fr;q=0.5' })).toEqual({ accept: 'application/json', acceptLanguage: 'fr' });
    expect(normalised({ 'accept-language': 'de-CH-1996' })).toEqual({ accept: 'application/json', acceptLanguage: 'de' });
    expect(normalised({ 'accept-language': 'es-419' })).toEqual({ accept: 'application/json', acceptLanguage: 'es' });
    // A language the pages do not speak: no header at all (English), not one entry per language of the world.
    expect(normalised({ 'accept-language': 'ja-JP,ja;q=0.9' })).toEqual({ accept: 'application/json', acceptLanguage: undefined });
    expect(normalised({})).toEqual({ accept: 'application/json', acceptLanguage: undefined });
  });

  test('headers sent on several lines are read as one list; the query string (?lang=) and the path pass untouched', () => {
    const request = viewerRequest({});
    request.headers['accept-language'] = { value: 'it', multiValue: [{ value: 'it' }, { value: 'fr-CA;q=0.8' }] };
    request.querystring = { lang: { value: 'de' } };
    const out = handler({ request });
    expect(out.headers['accept-language'].value).toBe('fr');
    expect(out.querystring).toEqual({ lang: { value: 'de' } });
    expect(out.uri).toBe('/trust-receipt/ORD-1');
  });
});
