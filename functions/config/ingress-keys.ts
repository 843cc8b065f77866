import { readFile } from 'node:fs/promises';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { INGRESS_SECRETS_SETTING } from '../contract/ingress-values';
import { parseVerificationKeys, type VerificationKeys } from '../domain/ingress/signature';
import { withoutSdkLogLines } from '../aws/sdk-log-lines';

/**
 * Where a receiver finds the verification keys of each source (docs/ingress.md#keys):
 *  - INGRESS_SECRETS_ARN (a deployment): a Secrets Manager secret whose value is a JSON object
 *    `{ "<sourceId>": "whsec_..." | "whpk_..." | [ ...several, for rotation ] }`. The stack creates
 *    it holding `{}`: every source is gated until an operator sets keys for it.
 *  - INGRESS_SECRETS_FILE (the local host only, never set by the stack): a JSON file of the same
 *    shape, fixtures/ingress-dev-secrets.json for `npm start`.
 *  - neither: nothing is configured and every source is gated (503), never open.
 * Values are read once and kept for KEY_CACHE_MS, so a rotation is picked up within that time.
 */
export const KEY_CACHE_MS = 5 * 60 * 1000;

export type SourceKeys = { kind: 'keys'; keys: VerificationKeys } | { kind: 'gated' } | { kind: 'unavailable' };

let cache: { at: number; bySource: Map<string, VerificationKeys> } | undefined;
let secrets: SecretsManagerClient | undefined;

function keysFrom(document: string): Map<string, VerificationKeys> {
  const bySource = new Map<string, VerificationKeys>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(document);
  } catch {
    return bySource; // not JSON: nothing is configured (and the value is never logged)
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return bySource;
  for (const [sourceId, value] of Object.entries(parsed)) {
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    const { keys } = parseVerificationKeys(values);
    if (keys.v1.length + keys.v1a.length > 0) bySource.set(sourceId, keys);
  }
  return bySource;
}

async function loadDocument(): Promise<string | null> {
  const arn = process.env[INGRESS_SECRETS_SETTING];
  if (arn) {
    secrets ??= withoutSdkLogLines(new SecretsManagerClient({ maxAttempts: 2 }));
    const out = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
    return out.SecretString ?? null;
  }
  const file = process.env.INGRESS_SECRETS_FILE;
  if (file) return readFile(file, 'utf8');
  return null;
}

/** The keys configured for a source, 'gated' when it has none, 'unavailable' when they cannot be read now. */
export async function keysForSource(sourceId: string, now: number = Date.now()): Promise<SourceKeys> {
  if (!cache || now - cache.at > KEY_CACHE_MS) {
    let document: string | null;
    try {
      document = await loadDocument();
    } catch {
      return { kind: 'unavailable' };
    }
    cache = { at: now, bySource: document === null ? new Map() : keysFrom(document) };
  }
  const keys = cache.bySource.get(sourceId);
  return keys ? { kind: 'keys', keys } : { kind: 'gated' };
}

/** Forgets the cached keys (tests, and the local host after it changes the configuration). */
export function forgetIngressKeys(): void {
  cache = undefined;
}
