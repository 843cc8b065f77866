/**
 * Strict standard base64 (RFC 4648 §4, padded). Buffer.from(…, 'base64') silently skips
 * stray characters and ignores non-zero padding bits, so two different texts could decode to
 * the same bytes; evidence must have exactly one spelling, so anything that does not re-encode
 * to itself is refused.
 */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function decodeBase64Strict(text: string): Buffer | null {
  if (typeof text !== 'string' || !BASE64.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

export const encodeBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
