import type { Browser, Page } from 'playwright-core';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { LANGUAGE_NAMES, LANGUAGES, type Lang } from '../../functions/contract/languages';
import type { LocalService } from '../../lib/local/service';
import { launchChromium } from '../support/browser';
import { catalogueFragments, fragmentFinder, sharedWords } from '../support/catalogue-fragments';
import { getJson, startTestService } from '../support/local';
import { OPEN_DETAILS_SCRIPT, PAGE_STRINGS_SCRIPT, RECORD_WORDS_SCRIPT, SPLIT_WORDS_SCRIPT, type PageString, type SplitWord } from '../support/page-words';

/**
 * Every page as a phone shows it (390 CSS pixels): no word of visible text is split across lines
 * (each word, a run of letters and digits, lies in one line box; codes and addresses wrap at their
 * underscores and slashes). And every page that speaks several languages, in each of them, for
 * every demo record: no text of another language's catalogue, and no words of the record's own
 * but those of the record (what the page marks translate="no" is found in the record's JSON).
 * Every <details> element is opened first, so the codes it holds are measured and read too.
 */
const PHONE = { width: 390, height: 844 };

const RECORDS: { reference: string; json: string }[] = [
  ...Object.values(DEMO_OBJECTS).map((reference) => ({ reference, json: `/v1/objects/${reference}` })),
  ...Object.values(DEMO_PROOFS).map((reference) => ({ reference, json: `/v1/commercial-proofs/${reference}` })),
  ...Object.values(DEMO_CREDENTIALS).map((reference) => ({ reference, json: `/v1/credentials/verify/${reference}` })),
];

/** The pages that speak every language: the landing, /verify (form, problem, each record), each record's receipt, a missing receipt. */
const pagesIn = (lang: Lang): { path: string; lang: Lang; record?: string }[] => [
  { path: `/?lang=${lang}`, lang },
  { path: `/verify?lang=${lang}`, lang },
  { path: `/verify?reference=-bad-&lang=${lang}`, lang },
  { path: `/trust-receipt/ORD-0000-UNKNOWN?lang=${lang}`, lang },
  ...RECORDS.flatMap(({ reference }) => [
    { path: `/verify?reference=${reference}&lang=${lang}`, lang, record: reference },
    { path: `/trust-receipt/${reference}?lang=${lang}`, lang, record: reference },
  ]),
];
const MULTILINGUAL = LANGUAGES.flatMap(pagesIn);
const ENGLISH_ONLY = ['/studio', '/developers', '/developers/reference'];

/**
 * Words two catalogues spell alike, so finding one on a page says nothing about its language: a
 * fragment of one catalogue that is also a word of the page language's own catalogue is not looked
 * for on that page. The last test holds this list to the catalogues (sharedWords): every word they
 * share is here with its reason, and nothing else, so a new one has to be looked at.
 */
const SAME_IN_BOTH: Record<string, string> = {
  Studio: 'the operating page is called Studio in all four languages',
  'ORD-2026-0001': 'the example reference in the form hint, the same reference in every language',
  Service: 'English and French (the navigation label)',
  Source: 'English and French',
  Verdict: 'English and French',
  Disposition: 'English and French (the contract term, beside its code)',
  minute: 'English and French',
  minutes: 'English and French',
  code: 'English and French (a problem code)',
  Code: 'German and French (a problem code; "Code QR")',
  Start: 'English and German (the landing page title)',
  Status: 'English and German',
  Abonnement: 'German and French (a subscription)',
  Garantie: 'German and French (a warranty)',
};

/** Fragments of other languages' catalogues that may not appear on a page in `lang`: all but the words its own catalogue shares with theirs. */
function foreignFragments(lang: Lang): { fragment: string; tag: Lang }[] {
  return LANGUAGES.filter((other) => other !== lang).flatMap((other) => {
    const shared = new Set(sharedWords(other, lang));
    return [...catalogueFragments(other)].filter((fragment) => !shared.has(fragment)).map((fragment) => ({ fragment, tag: other }));
  });
}
const FIND_FOREIGN = Object.fromEntries(LANGUAGES.map((lang) => [lang, fragmentFinder(foreignFragments(lang))])) as Record<Lang, ReturnType<typeof fragmentFinder<Lang>>>;

/**
 * Where another language's words are on a page: each fragment found, the language it belongs to,
 * and the text around it. Text marked as another language is allowed in two places only: the
 * switcher, which names each language in itself, and a problem's technical detail (the service's
 * own English, behind a <details> element); anywhere else it is reported as it is.
 */
function wordsOfOtherLanguages(strings: readonly PageString[], lang: Lang): string[] {
  const found: string[] = [];
  const names = new Set(Object.values(LANGUAGE_NAMES));
  for (const { text, lang: marked, place } of strings) {
    if (marked !== lang) {
      const allowed = (place === 'switcher' && names.has(text)) || (place === 'problem-detail' && marked === 'en');
      if (!allowed) found.push(`text marked ${marked || 'with no language'}: "${text}"`);
      continue;
    }
    for (const { fragment, tag } of FIND_FOREIGN[lang](text)) found.push(`${tag} "${fragment}" in "${text}"`);
  }
  return found;
}

/** Every string value of a JSON document (the record's own words a page may show). */
function stringsOf(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) value.forEach((v) => stringsOf(v, into));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => stringsOf(v, into));
  return into;
}

interface Findings {
  lang: string | null;
  split: string[];
  foreign: string[];
  /** What the page marks as the record's own words (translate="no"), as shown. */
  recordWords: string[];
}

let service: LocalService;
let browser: Browser;
const recordStrings = new Map<string, Set<string>>();
const findings = new Map<string, Promise<Findings>>();

/** Pages read at once, each in its own tab of the one browser: the machine's two cores stay busy while a page waits. */
const TABS = 3;

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  for (const { reference, json } of RECORDS) recordStrings.set(reference, stringsOf((await getJson(`${service.url}${json}`)).body));
  // Every page is read once, a few at a time, in the order the tests ask for them.
  const queue = [...MULTILINGUAL.map((p) => ({ path: p.path, lang: p.lang as Lang | undefined })), ...ENGLISH_ONLY.map((path) => ({ path, lang: undefined }))];
  const pending = new Map<string, { resolve: (f: Findings) => void; reject: (error: unknown) => void }>();
  for (const { path } of queue) {
    const read = new Promise<Findings>((resolve, reject) => pending.set(path, { resolve, reject }));
    // A page that cannot be read fails its own test, which awaits this promise; nothing else waits on it.
    read.catch(() => undefined);
    findings.set(path, read);
  }
  const next = async (): Promise<void> => {
    for (let item = queue.shift(); item; item = queue.shift()) {
      const { resolve, reject } = pending.get(item.path)!;
      await readPage(item.path, item.lang).then(resolve, reject);
    }
  };
  for (let i = 0; i < TABS; i++) void next();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** A page at the phone's width, with the in-browser check settled, the rendered reference drawn, and every <details> open. */
async function openOnPhone(path: string): Promise<Page> {
  const page = await browser.newPage({ viewport: PHONE });
  await page.goto(`${service.url}${path}`, { waitUntil: 'load' });
  if (await page.locator('#device-evidence').count()) await page.waitForFunction("document.getElementById('device-check').dataset.verification !== 'pending'", undefined, { timeout: 10_000 });
  if (path.startsWith('/developers/reference')) await page.waitForSelector('#api-reference .opblock', { timeout: 15_000 });
  await page.evaluate(OPEN_DETAILS_SCRIPT);
  return page;
}

const splitWords = (page: Page) => page.evaluate(SPLIT_WORDS_SCRIPT) as Promise<SplitWord[]>;

async function readPage(path: string, lang: Lang | undefined): Promise<Findings> {
  const page = await openOnPhone(path);
  try {
    return {
      lang: await page.locator('html').getAttribute('lang'),
      split: (await splitWords(page)).map((s) => `${s.word} [${s.context}]`),
      foreign: lang ? wordsOfOtherLanguages((await page.evaluate(PAGE_STRINGS_SCRIPT)) as PageString[], lang) : [],
      recordWords: (await page.evaluate(RECORD_WORDS_SCRIPT)) as string[],
    };
  } finally {
    await page.close();
  }
}

describe.each(LANGUAGES)('in %s, at 390 px', (lang) => {
  test.each(pagesIn(lang))('$path: no word split across lines, no word of another language, record words only from the record', async ({ path, record }) => {
    const found = await findings.get(path)!;
    expect(found.lang).toBe(lang);
    expect(found.split).toEqual([]);
    expect(found.foreign).toEqual([]);
    const allowed = record ? recordStrings.get(record)! : new Set<string>();
    expect(found.recordWords.filter((text) => !allowed.has(text))).toEqual([]);
  });
});

test.each(ENGLISH_ONLY)('%s (English only), at 390 px: no word split across lines', async (path) => {
  expect((await findings.get(path)!).split).toEqual([]);
});

test('the split-word check is real: a word too long for its box is found, a code wrapping at its underscores is not', async () => {
  const page = await openOnPhone('/verify');
  try {
    // Styles set through the CSSOM, which the pages' policy allows (style attributes in markup it refuses).
    await page.evaluate(`(() => {
      const narrow = document.createElement('p');
      narrow.style.width = '60px';
      narrow.style.overflowWrap = 'anywhere';
      narrow.textContent = 'Verifiable NOT_CONFIGURED';
      const code = document.createElement('p');
      code.style.width = '80px';
      code.append('KEPT_', document.createElement('wbr'), 'CLOSED_', document.createElement('wbr'), 'ON_', document.createElement('wbr'), 'PURPOSE');
      const hidden = document.createElement('wbr');
      const joined = document.createElement('p');
      joined.style.width = '40px';
      joined.append('split', hidden, 'inside');
      document.querySelector('main').append(narrow, code, joined);
    })()`);
    expect((await splitWords(page)).map((s) => s.word).sort()).toEqual(['CONFIGURED', 'Verifiable', 'splitinside']);
  } finally {
    await page.close();
  }
});

test('the language check is real: an English state on a German receipt, and a German word in an aria-label, are found', async () => {
  const page = await openOnPhone(`/trust-receipt/${DEMO_OBJECTS.revoked}?lang=de`);
  try {
    await page.evaluate(`(() => {
      const p = document.createElement('p');
      p.textContent = 'Zustand: Cancelled';
      document.querySelector('main').append(p);
      document.querySelector('main').setAttribute('aria-label', 'Trust receipt');
    })()`);
    const found = wordsOfOtherLanguages((await page.evaluate(PAGE_STRINGS_SCRIPT)) as PageString[], 'de');
    expect(found).toEqual(expect.arrayContaining([expect.stringMatching(/^en "Cancelled"/), expect.stringMatching(/^en "Trust receipt"/)]));
    expect(wordsOfOtherLanguages([{ text: 'Zustand geändert von Aufgegeben zu Storniert', lang: 'de' }], 'de')).toEqual([]);
  } finally {
    await page.close();
  }
});

test('the words two catalogues share are exactly those listed as the same in both, each with its reason', () => {
  const shared = new Set(LANGUAGES.flatMap((lang) => LANGUAGES.filter((other) => other !== lang).flatMap((other) => sharedWords(other, lang))));
  expect([...shared].sort()).toEqual(Object.keys(SAME_IN_BOTH).sort());
});
