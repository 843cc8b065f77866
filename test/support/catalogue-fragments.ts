import { parse, type Token } from '@messageformat/parser';
import type { Lang } from '../../functions/contract/languages';
import { CATALOGUES } from '../../lib/contract/generate-messages';

/**
 * The literal text of every message of a catalogue, cut where the message leaves its words: at an
 * argument and at a markup tag. A plural or select is read as each of its cases in place, so
 * "{purpose, select, revocation {revocation} other {status}} list" gives "revocation list" and
 * "status list". These fragments are the page text a catalogue can put on a page; a fragment of
 * another language's catalogue on a page is a word the page did not take from its own.
 */
export function fragmentsOf(message: string): string[] {
  return readingsOf(message)
    .flatMap((text) => text.split('\u0000'))
    .map((fragment) => fragment.replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, ''))
    .filter((fragment) => [...fragment.matchAll(/\p{L}/gu)].length >= MINIMUM_LETTERS);
}

/** Every reading of a message: one per combination of plural and select cases, each argument and tag a \u0000. */
export function readingsOf(message: string): string[] {
  const readings = (tokens: readonly Token[]): string[] =>
    tokens.reduce<string[]>(
      (texts, token) => {
        const parts =
          token.type === 'content'
            ? [token.value]
            : token.type === 'plural' || token.type === 'select' || token.type === 'selectordinal'
              ? token.cases.flatMap((c) => readings(c.tokens))
              : ['\u0000'];
        return texts.flatMap((text) => parts.map((part) => text + part));
      },
      [''],
    );
  return readings(parse(message, { strict: true })).map((text) => text.replace(/<[^>]*>/g, '\u0000'));
}

/**
 * Fragments of fewer letters ("on", "à", "de") say nothing about a language: they are words of
 * several, so they are not looked for.
 */
export const MINIMUM_LETTERS = 3;

/** Every fragment of a language's catalogue. */
export function catalogueFragments(lang: Lang): Set<string> {
  return new Set(Object.values(CATALOGUES[lang]).flatMap(fragmentsOf));
}

/**
 * The fragments of one catalogue that are also words of another's text: words the two languages
 * spell alike ("Status" in English and German), which say nothing about a page's language.
 */
export function sharedWords(of: Lang, within: Lang): string[] {
  const texts = Object.values(CATALOGUES[within]).flatMap(readingsOf);
  return [...catalogueFragments(of)].filter((fragment) => texts.some((text) => containsWord(text, fragment)));
}

/** Where a fragment stands alone in a text: not inside a longer word (Unicode letters and digits). */
export function containsWord(text: string, fragment: string): boolean {
  const escaped = fragment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').test(text);
}

/**
 * Finds any of many fragments standing alone in a text, with one regular expression (longest
 * first, so "Trust receipt" is reported rather than a shorter fragment inside it).
 */
export function fragmentFinder<Tag>(fragments: readonly { fragment: string; tag: Tag }[]): (text: string) => { fragment: string; tag: Tag }[] {
  const byFragment = new Map(fragments.map((f) => [f.fragment, f]));
  const alternatives = [...byFragment.keys()].sort((a, b) => b.length - a.length).map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (alternatives.length === 0) return () => [];
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'gu');
  return (text) => [...text.matchAll(pattern)].map((m) => byFragment.get(m[0])!);
}
