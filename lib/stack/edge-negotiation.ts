import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGES } from '../../functions/contract/languages';
import { DATE_FORMATS as DE } from '../../functions/generated/date-formats/de';
import { DATE_FORMATS as EN } from '../../functions/generated/date-formats/en';
import { DATE_FORMATS as ES } from '../../functions/generated/date-formats/es';
import { DATE_FORMATS as FR } from '../../functions/generated/date-formats/fr';

/**
 * The locales a page can answer in: every language alone and every language-REGION with a date
 * format of its own (the same tables the pages format dates from), so the edge never sends a tag
 * the origin would treat differently from one it already has in the cache.
 */
export function pageLocales(): string[] {
  const regional = [EN, DE, FR, ES].flatMap((table) => Object.keys(table));
  return [...new Set([...LANGUAGES, ...regional])].sort();
}

/** CloudFront Functions take at most 10 KB of code (CloudFront quotas, "Function size"). */
export const FUNCTION_CODE_LIMIT_BYTES = 10_240;

/** The code of the viewer-request function that normalises Accept and Accept-Language (edge-negotiation-function.js). */
export function negotiationFunctionCode(): string {
  const source = readFileSync(path.join(__dirname, 'edge-negotiation-function.js'), 'utf8');
  const code = source.replace('__PAGE_LOCALES__', JSON.stringify(pageLocales()));
  if (Buffer.byteLength(code) > FUNCTION_CODE_LIMIT_BYTES) throw new Error(`the edge's negotiation function is ${Buffer.byteLength(code)} bytes; CloudFront Functions take ${FUNCTION_CODE_LIMIT_BYTES}`);
  return code;
}
