import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGES } from '../../functions/contract/languages';
import { LANGUAGE_RANGE } from '../../functions/pages/negotiation';

/**
 * What the edge may set Accept-Language to: the pages' languages alone. A page takes from the
 * header only which of its languages to speak (functions/pages/negotiation.ts acceptedLanguage; a
 * region's date format comes from `?lang=`, in the URL), so a region kept in the key would only
 * keep more copies of the same page.
 */
export function pageLocales(): string[] {
  return [...LANGUAGES].sort();
}

/** CloudFront Functions take at most 10 KB of code (CloudFront quotas, "Function size"). */
export const FUNCTION_CODE_LIMIT_BYTES = 10_240;

/** The code of the viewer-request function that normalises Accept and Accept-Language (edge-negotiation-function.js). */
export function negotiationFunctionCode(): string {
  const source = readFileSync(path.join(__dirname, 'edge-negotiation-function.js'), 'utf8');
  const code = source.replace('__PAGE_LOCALES__', JSON.stringify(pageLocales())).replace('__LANGUAGE_RANGE__', () => String(LANGUAGE_RANGE));
  if (Buffer.byteLength(code) > FUNCTION_CODE_LIMIT_BYTES) throw new Error(`the edge's negotiation function is ${Buffer.byteLength(code)} bytes; CloudFront Functions take ${FUNCTION_CODE_LIMIT_BYTES}`);
  return code;
}
