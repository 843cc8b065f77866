import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import {
  REPLAY_WINDOW_SECONDS,
  WEBHOOK_HEADERS,
  WEBHOOK_ID_MAX_LENGTH,
  WEBHOOK_ID_PATTERN,
  WEBHOOK_SIGNATURE_ENTRY_PATTERN,
  WEBHOOK_SIGNATURE_MAX_LENGTH,
  WEBHOOK_SIGNATURES_READ,
  WEBHOOK_TIMESTAMP_PATTERN,
} from '../../contract/ingress-values';

/**
 * Standard Webhooks verification (https://www.standardwebhooks.com), pure: the raw body as
 * received, the headers, the source's configured keys and the clock in, a verdict out. Nothing
 * here parses the body.
 *
 * - v1 (HMAC-SHA256 with a `whsec_` secret) is checked by the `standardwebhooks` package
 *   (its Webhook.verify, constant-time comparison).
 * - v1a (Ed25519 with a `whpk_` public key) is not offered by the package (1.1.x signs and
 *   verifies v1 only), so it is checked here with node:crypto exactly as the specification states
 *   it: the signature is base64 of Ed25519 over the UTF-8 bytes of `{webhook-id}.{webhook-timestamp}.{body}`.
 * - webhook-signature is a space-delimited list of `version,base64` (key rotation): the delivery
 *   is authentic when any listed signature verifies with any configured key.
 * The headers and their forms are the contract's (functions/contract/ingress-values.ts): the
 * receivers declare them as required header parameters from the same values, and a test holds the
 * declaration to what this function checks.
 */

export type SignatureRefusal = 'SIGNATURE_MISSING' | 'SIGNATURE_INVALID' | 'TIMESTAMP_OUT_OF_WINDOW';

export type WebhookHeader = (typeof WEBHOOK_HEADERS)[keyof typeof WEBHOOK_HEADERS];

export type Verdict =
  | { ok: true; webhookId: string; timestamp: number }
  | {
      ok: false;
      refusal: SignatureRefusal;
      detail: string;
      /** SIGNATURE_MISSING: every required header the delivery lacks. */
      missing?: WebhookHeader[];
      /** SIGNATURE_INVALID for a header's form (not for a signature that does not verify): that header. */
      malformed?: WebhookHeader;
    };

/** A source's verification keys, parsed once from configuration. */
export interface VerificationKeys {
  /** `whsec_` secrets, as the package takes them. */
  v1: Webhook[];
  v1a: KeyObject[];
}

const WHSEC = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const WHPK = /^whpk_[A-Za-z0-9+/]+={0,2}$/;

/**
 * Parses configured key strings (`whsec_...` or `whpk_...`). Anything else is ignored and reported
 * by position only, never by value, so a misconfigured secret never reaches a log.
 */
export function parseVerificationKeys(values: readonly string[]): { keys: VerificationKeys; ignored: number[] } {
  const keys: VerificationKeys = { v1: [], v1a: [] };
  const ignored: number[] = [];
  values.forEach((value, index) => {
    try {
      if (WHSEC.test(value)) {
        const raw = Buffer.from(value.slice(6), 'base64');
        // The specification: at least 24 bytes (192 bits), at most 64.
        if (raw.length < 24 || raw.length > 64) throw new RangeError('secret length');
        keys.v1.push(new Webhook(value));
      } else if (WHPK.test(value)) {
        const raw = Buffer.from(value.slice(5), 'base64');
        if (raw.length !== 32) throw new RangeError('public key length');
        keys.v1a.push(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' }));
      } else {
        ignored.push(index);
      }
    } catch {
      ignored.push(index);
    }
  });
  return { keys, ignored };
}

const ID = new RegExp(WEBHOOK_ID_PATTERN);
const TIMESTAMP = new RegExp(WEBHOOK_TIMESTAMP_PATTERN);
/** One listed signature: a version and base64 (standard alphabet, padded). */
const LISTED = new RegExp(WEBHOOK_SIGNATURE_ENTRY_PATTERN);

/**
 * Verifies one delivery. Order: the three headers are present (else SIGNATURE_MISSING), well formed
 * (else SIGNATURE_INVALID), the timestamp is within the replay window (else
 * TIMESTAMP_OUT_OF_WINDOW), and a listed signature verifies (else SIGNATURE_INVALID). The detail
 * says which, and never repeats a key or the expected signature.
 */
export function verifyDelivery(rawBody: string, headers: Record<string, string | undefined>, keys: VerificationKeys): Verdict {
  // The service clock (the package's own v1 check reads Date.now() too, so both agree; tests set it with fake timers).
  const nowMs = Date.now();
  const id = headers[WEBHOOK_HEADERS.id];
  const timestamp = headers[WEBHOOK_HEADERS.timestamp];
  const signature = headers[WEBHOOK_HEADERS.signature];
  const missing = (
    [
      [WEBHOOK_HEADERS.id, id],
      [WEBHOOK_HEADERS.timestamp, timestamp],
      [WEBHOOK_HEADERS.signature, signature],
    ] as const
  ).filter(([, v]) => v === undefined || v.trim() === '').map(([name]) => name);
  if (missing.length > 0) return { ok: false, refusal: 'SIGNATURE_MISSING', missing, detail: `The delivery carries no ${missing.join(', ')} header: every delivery must be signed (Standard Webhooks).` };
  const malformed = (header: WebhookHeader, detail: string): Verdict => ({ ok: false, refusal: 'SIGNATURE_INVALID', malformed: header, detail });
  if (!ID.test(id!)) return malformed(WEBHOOK_HEADERS.id, `The ${WEBHOOK_HEADERS.id} header must be 1 to ${WEBHOOK_ID_MAX_LENGTH} of A-Z a-z 0-9 _ -.`);
  if (!TIMESTAMP.test(timestamp!)) return malformed(WEBHOOK_HEADERS.timestamp, `The ${WEBHOOK_HEADERS.timestamp} header must be whole seconds since the Unix epoch.`);
  const seconds = Number(timestamp);
  const skew = Math.floor(nowMs / 1000) - seconds;
  if (Math.abs(skew) > REPLAY_WINDOW_SECONDS) {
    const which = skew > 0 ? `${skew} s old` : `${-skew} s in the future`;
    return { ok: false, refusal: 'TIMESTAMP_OUT_OF_WINDOW', detail: `The ${WEBHOOK_HEADERS.timestamp} is ${which}; deliveries are accepted within ${REPLAY_WINDOW_SECONDS} s of the service clock (replay window).` };
  }
  if (signature!.length > WEBHOOK_SIGNATURE_MAX_LENGTH) return malformed(WEBHOOK_HEADERS.signature, `The ${WEBHOOK_HEADERS.signature} header is longer than ${WEBHOOK_SIGNATURE_MAX_LENGTH} characters.`);
  const listed = signature!.split(' ').filter((s) => s !== '');
  const v1: string[] = [];
  const v1a: Buffer[] = [];
  for (const entry of listed.slice(0, WEBHOOK_SIGNATURES_READ)) {
    const m = LISTED.exec(entry);
    if (!m) continue; // other versions are skipped, as the specification lets a list carry them
    if (m[1] === 'v1') v1.push(entry);
    else v1a.push(Buffer.from(m[2], 'base64'));
  }
  if (v1.length + v1a.length === 0) {
    return malformed(WEBHOOK_HEADERS.signature, `The ${WEBHOOK_HEADERS.signature} header lists no v1 or v1a signature among its first ${WEBHOOK_SIGNATURES_READ} entries.`);
  }
  if (v1.length > 0) {
    const v1Headers = { [WEBHOOK_HEADERS.id]: id!, [WEBHOOK_HEADERS.timestamp]: timestamp!, [WEBHOOK_HEADERS.signature]: v1.join(' ') };
    for (const key of keys.v1) {
      try {
        key.verify(rawBody, v1Headers, { jsonParse: false });
        return { ok: true, webhookId: id!, timestamp: seconds };
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
      }
    }
  }
  if (v1a.length > 0) {
    const content = Buffer.from(`${id}.${timestamp}.${rawBody}`, 'utf8');
    for (const key of keys.v1a) {
      for (const sig of v1a) {
        if (sig.length === 64 && verifySignature(null, content, key, sig)) return { ok: true, webhookId: id!, timestamp: seconds };
      }
    }
  }
  return { ok: false, refusal: 'SIGNATURE_INVALID', detail: 'No signature in webhook-signature verifies with a key configured for this source.' };
}
