import createClient, { type Client } from 'openapi-fetch';
import { isLogEvidence } from './checks/evidence-format';
import type { paths } from './generated/api';
import { evidenceSubject } from './responses';
import { verifyEvidence, type EvidenceOptions, type EvidenceResult } from './verify';

/**
 * A typed client for every read operation of the service (the GET routes of its OpenAPI contract;
 * types generated from it with openapi-typescript), on openapi-fetch. Every answer comes back as
 * `{ data, error, response }`; `data` and `error` carry the contract's types.
 */
export type TrustClient = Client<paths>;
export type { paths };

export interface ClientOptions {
  /** The service's base URL, e.g. https://trust.example.com (no trailing path). */
  baseUrl: string;
  /** A fetch of your own (defaults to the platform's). */
  fetch?: (request: Request) => Promise<Response>;
}

export function createTrustClient(options: ClientOptions): TrustClient {
  return createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: options.fetch, headers: { accept: 'application/json' } });
}

/** The answers that carry ledger evidence, by what they are about. */
export type EvidenceKind = 'object' | 'commercial-proof' | 'credential' | 'status-list';

/** Reading an answer failed: the service answered something else than 200 (a problem), or nothing usable. */
export class FetchError extends Error {
  override name = 'FetchError';
  constructor(
    readonly url: string,
    readonly status: number,
    detail: string,
  ) {
    super(`${url} answered ${status}${detail ? `: ${detail}` : ''}`);
  }
}

export interface FetchAndVerifyOptions extends EvidenceOptions, Partial<ClientOptions> {
  /** What a bare reference names (default: object). Ignored when the reference is a URL. */
  kind?: EvidenceKind;
  /** For an object, the view as it stood at that instant (`asOf`); for a status list, the list then (`timestamp`). */
  at?: string;
  /**
   * Also read the log's own copy of the evidence's checkpoint (`/ledger/checkpoints/<size>`) for
   * witness cosignatures added after the evidence was issued (default: when witnesses are named).
   */
  readCheckpointCopy?: boolean;
}

export interface FetchedResult extends EvidenceResult {
  /** What was read. */
  url: string;
  /** The answer as read: use it once `ok` is true, and only for what integrity covers. */
  answer: unknown;
}

const ROUTES: Record<string, EvidenceKind> = { objects: 'object', 'commercial-proofs': 'commercial-proof', 'credentials/verify': 'credential', 'status-lists': 'status-list' };

/** A read URL of the service, as its base URL, kind, reference and instant. */
function parseReadUrl(text: string): { baseUrl: string; kind: EvidenceKind; reference: string; at?: string } {
  const url = new URL(text);
  const m = /^(.*)\/v1\/(objects|commercial-proofs|credentials\/verify|status-lists)\/([^/]+)$/.exec(url.pathname);
  if (!m) throw new TypeError(`${text} is not the URL of an object, commercial proof, credential verification or status list of the service`);
  const at = url.searchParams.get('asOf') ?? url.searchParams.get('timestamp') ?? undefined;
  return { baseUrl: `${url.origin}${m[1]}`, kind: ROUTES[m[2]], reference: decodeURIComponent(m[3]), at };
}

/** The contract's problem detail, when the service answered one. */
const problemDetail = (error: unknown): string => (error && typeof error === 'object' && typeof (error as { detail?: unknown }).detail === 'string' ? (error as { detail: string }).detail : '');

async function read(client: TrustClient, kind: EvidenceKind, reference: string, at: string | undefined): Promise<{ data?: unknown; error?: unknown; response: Response }> {
  switch (kind) {
    case 'object':
      return client.GET('/v1/objects/{reference}', { params: { path: { reference }, query: at ? { asOf: at } : {} } });
    case 'commercial-proof':
      return client.GET('/v1/commercial-proofs/{reference}', { params: { path: { reference } } });
    case 'credential':
      return client.GET('/v1/credentials/verify/{claimId}', { params: { path: { claimId: reference } } });
    case 'status-list':
      return client.GET('/v1/status-lists/{listId}', { params: { path: { listId: reference }, query: at ? { timestamp: at } : {} } });
  }
}

/**
 * Reads an answer of the service and verifies its ledger evidence in one call, against the keys
 * you pin in `trustedKeys` (never keys read from the service in the same breath: a service that
 * lied about the record could lie about its key). `reference` is a read URL
 * (`https://…/v1/objects/ORD-2026-0001`, `…/v1/commercial-proofs/…`, `…/v1/credentials/verify/…`,
 * `…/v1/status-lists/…`) or a bare reference with `baseUrl` and `kind`. Throws FetchError when the
 * service answers anything but 200.
 */
export async function fetchAndVerify(reference: string | URL, options: FetchAndVerifyOptions): Promise<FetchedResult> {
  const text = String(reference);
  const target = /^https?:\/\//i.test(text)
    ? parseReadUrl(text)
    : { baseUrl: options.baseUrl ?? '', kind: options.kind ?? 'object', reference: text, at: options.at };
  if (!target.baseUrl) throw new TypeError('a bare reference needs the service\'s baseUrl');
  const client = createTrustClient({ baseUrl: target.baseUrl, fetch: options.fetch });
  const { data, error, response } = await read(client, target.kind, target.reference, target.at ?? options.at);
  if (!response.ok || data === undefined) throw new FetchError(response.url, response.status, problemDetail(error));
  let checkpointCopies = options.checkpointCopies ?? [];
  // The size the evidence names, unverified: only to find the log's copy of its checkpoint.
  const { evidence } = evidenceSubject(data);
  const treeSize = isLogEvidence(evidence) ? evidence.treeSize : null;
  if ((options.readCheckpointCopy ?? (options.witnesses?.length ?? 0) > 0) && treeSize !== null) {
    const copy = await client.GET('/ledger/checkpoints/{treeSize}', { params: { path: { treeSize: String(treeSize) } }, parseAs: 'text' });
    if (copy.response.ok && typeof copy.data === 'string') checkpointCopies = [...checkpointCopies, copy.data];
  }
  const result = await verifyEvidence(data, { ...options, checkpointCopies });
  return { ...result, url: response.url, answer: data };
}
