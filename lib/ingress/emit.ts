import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { CLOUDEVENTS_SPEC_VERSION } from '../../functions/contract/events';
import { eventContract, INGRESS_SOURCES, LIFECYCLE_SOURCE_ID, type IngressSourceId } from '../../functions/contract/ingress';

/**
 * Building, signing and sending canonical events to the receivers, as an event source does
 * (`npm run emit`, the tests, the examples). Signing uses the standardwebhooks package (v1).
 */

/** The source that sends an event type, and the receiver path it sends to. */
export function senderOf(type: string): { sourceId: IngressSourceId; path: string } {
  const entry = Object.entries(INGRESS_SOURCES).find(([, s]) => (s.accepts as readonly string[]).includes(type));
  if (!entry) throw new Error(`no source sends ${type}; known types: ${Object.values(INGRESS_SOURCES).flatMap((s) => s.accepts).join(', ')}`);
  const sourceId = entry[0] as IngressSourceId;
  return { sourceId, path: sourceId === LIFECYCLE_SOURCE_ID ? '/v1/lifecycle/events' : `/v1/webhooks/${sourceId}` };
}

const DISCLOSURE = { containsCustomerPii: false, containsPaymentAccountData: false };

/** The payload of `type` about `reference`, defaults filled in, `fields` (name=value strings) on top. */
export function payloadOf(type: string, reference: string, fields: Record<string, string>, at: string): Record<string, unknown> {
  const defaults: Record<string, Record<string, unknown>> = {
    'svc.living-object.state-changed.v1': { reference, objectType: 'ORDER', previousState: null, changedAt: at, recordVersion: 1, resolveUrl: `/v1/objects/${reference}`, disclosure: DISCLOSURE },
    'svc.living-object.authority-observed.v1': { reference, objectType: 'ORDER', observedAt: at, resolveUrl: `/v1/objects/${reference}`, disclosure: DISCLOSURE },
    'svc.credential.status-changed.v1': { claimId: reference, previousStatus: null, changedAt: at, verifyUrl: `/v1/credentials/verify/${reference}`, disclosure: DISCLOSURE },
    'svc.commercial-proof.source-snapshot.v1': {
      reference,
      digest: `sha256:${createHash('sha256').update(`${reference}\n${at}`).digest('hex')}`,
      observedAt: at,
      proofUrl: `/v1/commercial-proofs/${reference}`,
      disclosure: DISCLOSURE,
    },
  };
  const base = defaults[type];
  if (!base) throw new Error(`unknown event type ${type}`);
  const out: Record<string, unknown> = { ...base };
  for (const [name, raw] of Object.entries(fields)) out[name] = raw === 'null' ? null : /^\d+$/.test(raw) && name === 'recordVersion' ? Number(raw) : raw;
  return out;
}

/** A CloudEvents 1.0 structured-mode event of a canonical type (`id`: a new UUID unless given). */
export function buildEvent(type: string, reference: string, fields: Record<string, string> = {}, at: string = new Date().toISOString(), id: string = randomUUID()): Record<string, unknown> {
  const contract = eventContract(type);
  if (!contract) throw new Error(`unknown event type ${type}`);
  return {
    specversion: CLOUDEVENTS_SPEC_VERSION,
    id,
    source: contract.source,
    type,
    subject: reference,
    time: at,
    datacontenttype: 'application/json',
    data: payloadOf(type, reference, fields, at),
  };
}

export const newWebhookId = (): string => `msg_${randomBytes(12).toString('base64url').replace(/[^A-Za-z0-9]/g, 'x')}`;

/** Standard Webhooks headers for a body, signed (v1) with each secret given (several: key rotation). */
export function signedHeaders(body: string, secrets: readonly string[], options: { id?: string; timestampSeconds?: number } = {}): Record<string, string> {
  const id = options.id ?? newWebhookId();
  const seconds = options.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, new Date(seconds * 1000), body));
  return { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': signatures.join(' ') };
}

/** The development secrets (fixtures/ingress-dev-secrets.json), for the local host only. */
export function devSecrets(file: string): Record<string, string> {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].startsWith('whsec_')));
}

/**
 * `count` events of `type` about `reference` for one batch delivery, each with its own id and its
 * own instant (1 ms apart, the last `at`), so each is an event of its own.
 */
export function buildBatch(type: string, reference: string, fields: Record<string, string>, count: number, at: Date = new Date()): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => buildEvent(type, reference, fields, new Date(at.getTime() - (count - 1 - i)).toISOString()));
}

/** Signs and POSTs a body to a running service; returns the status and the parsed answer. */
export async function deliver(baseUrl: string, path: string, body: string, headers: Record<string, string>): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json', ...headers }, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
