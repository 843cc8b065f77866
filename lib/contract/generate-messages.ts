/**
 * The page texts: one ICU MessageFormat catalogue per language
 * (functions/pages/messages/<lang>.json), compiled at build time by messageformat into
 * plain functions, so a page function loads no message parser and formats plurals with the
 * runtime's CLDR rules only. Committed, rewritten by `npm run generate`, held to the catalogues by
 * test/unit/generated-from-contract.test.ts; a catalogue that misses or adds a key stops the build.
 */
import MessageFormat from '@messageformat/core';
import compileModule from '@messageformat/core/lib/compile-module';
import de from '../../functions/pages/messages/de.json';
import en from '../../functions/pages/messages/en.json';
import es from '../../functions/pages/messages/es.json';
import fr from '../../functions/pages/messages/fr.json';

/** One compiled module per language, so a page that speaks only English carries only English. */
export const generatedMessagesFile = (lang: string): string => `functions/generated/messages/${lang}.ts`;

/** The catalogues by language; English is the reference every other must match key for key. */
export const CATALOGUES: Readonly<Record<string, Readonly<Record<string, string>>>> = { en, de, fr, es };

/** Keys a catalogue lacks or has beyond the English one, by language (empty when all match). */
export function catalogueMismatches(catalogues = CATALOGUES): string[] {
  const reference = Object.keys(catalogues.en);
  const problems: string[] = [];
  for (const [lang, catalogue] of Object.entries(catalogues)) {
    for (const key of reference) if (!(key in catalogue)) problems.push(`${lang} lacks '${key}'`);
    for (const key of Object.keys(catalogue)) if (!(key in catalogues.en)) problems.push(`${lang} has '${key}', which en does not`);
  }
  return problems;
}

/**
 * The words every page needs whatever it speaks (frame, lookup form, problems, times): compiled
 * from the English catalogue alone as well, for the pages that speak only English.
 */
export const FRAME_KEY_PREFIXES = ['frame.', 'time.', 'form.', 'problem.'];
export const GENERATED_FRAME_MESSAGES_FILE = 'functions/generated/messages/en-frame.ts';

/**
 * The landing speaks every language but needs only its own words and the frame's: one small
 * module per language (landing-<lang>.ts), so its function does not carry the receipt's words.
 */
export const LANDING_KEY_PREFIXES = [...FRAME_KEY_PREFIXES, 'landing.'];
export const generatedLandingMessagesFile = (lang: string): string => `functions/generated/messages/landing-${lang}.ts`;

/** The order of the keys in every full catalogue module (an array, so the keys are written once). */
export const GENERATED_MESSAGE_KEYS_FILE = 'functions/generated/messages/keys.ts';

type Shape = 'object' | 'lazy object' | 'lazy list';

/**
 * The compiled module of each language, by file. The full catalogues, which every page that speaks
 * several languages carries four of, are a list in the order of MESSAGE_KEYS (keys.ts), each plain
 * text a string and each message with arguments a function: the keys are written once instead of
 * four times, and no function wraps a constant (21 KiB less in each multilingual page's bundle). The
 * frame's and the landing's smaller catalogues stay objects: `{ "<key>": (args) => string }`.
 */
export function generateMessages(catalogues = CATALOGUES): Array<[file: string, source: string]> {
  const problems = catalogueMismatches(catalogues);
  if (problems.length > 0) throw new Error(`message catalogues differ: ${problems.join('; ')}`);
  const keys = Object.keys(catalogues.en);
  const compiled = (lang: string, catalogue: Readonly<Record<string, string>>, what: string, shape: Shape): string => {
    let source = compileModule(new MessageFormat(lang, { strict: true }), catalogue).trim();
    // A catalogue without plurals or selects imports nothing, so its module starts with the export.
    const body = /(^|\n)export default \{\n([\s\S]*)\n\}$/.exec(source);
    if (!body) throw new Error('messageformat output changed shape: export default { … } expected');
    const head = source.slice(0, body.index + body[1].length);
    if (shape === 'lazy object') {
      // A whole catalogue behind one function: a cold start only pre-parses it, and a language
      // nobody asked for is never built.
      source = `${head}/** The compiled catalogue, built on first use. */\nexport default () => ({\n${body[2]}\n});`;
    } else if (shape === 'lazy list') {
      const entries = new Map<string, string>();
      for (const line of body[2].split('\n')) {
        const entry = /^ {2}("(?:[^"\\]|\\.)*"): (.*?),?$/.exec(line);
        if (!entry) throw new Error(`messageformat output changed shape: one "key": value per line expected, got ${line}`);
        entries.set(JSON.parse(entry[1]) as string, entry[2]);
      }
      if (entries.size !== keys.length || keys.some((key) => !entries.has(key))) throw new Error(`the ${lang} catalogue did not compile one entry per key`);
      const value = (compiledValue: string) => /^\(\) => ("(?:[^"\\]|\\.)*")$/.exec(compiledValue)?.[1] ?? compiledValue;
      source = `${head}/** The compiled catalogue in the order of MESSAGE_KEYS (keys.ts), built on first use: plain text as a string, a message with arguments as a function. */\nexport default () => [\n${keys.map((key) => `  ${value(entries.get(key)!)},`).join('\n')}\n];`;
    }
    return [
      `// Generated by \`npm run generate\` (lib/contract/generate-messages.ts) from ${what}`,
      `// (functions/pages/messages/${lang}.json). Do not edit: change the catalogue and regenerate.`,
      '// @ts-nocheck',
      source,
      '',
    ].join('\n');
  };
  const only = (catalogue: Readonly<Record<string, string>>, prefixes: readonly string[]) =>
    Object.fromEntries(Object.entries(catalogue).filter(([key]) => prefixes.some((prefix) => key.startsWith(prefix))));
  const keysModule = [
    '// Generated by `npm run generate` (lib/contract/generate-messages.ts) from the en message catalogue',
    '// (functions/pages/messages/en.json). Do not edit: change the catalogue and regenerate.',
    '',
    '/** The keys of every catalogue, in the order each compiled catalogue lists its messages. */',
    `export const MESSAGE_KEYS = ${JSON.stringify(keys, null, 2)} as const;`,
    '',
  ].join('\n');
  return [
    [GENERATED_MESSAGE_KEYS_FILE, keysModule],
    ...Object.entries(catalogues).map(([lang, catalogue]): [string, string] => [generatedMessagesFile(lang), compiled(lang, catalogue, `the ${lang} message catalogue`, 'lazy list')]),
    [GENERATED_FRAME_MESSAGES_FILE, compiled('en', only(catalogues.en, FRAME_KEY_PREFIXES), `the page-frame keys (${FRAME_KEY_PREFIXES.join(' ')}) of the en message catalogue`, 'object')],
    ...Object.entries(catalogues).map(([lang, catalogue]): [string, string] => [
      generatedLandingMessagesFile(lang),
      compiled(lang, only(catalogue, LANDING_KEY_PREFIXES), `the landing keys (${LANDING_KEY_PREFIXES.join(' ')}) of the ${lang} message catalogue`, 'lazy object'),
    ]),
  ];
}
