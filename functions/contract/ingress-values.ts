/**
 * The receiving side's values (sources, headers, limits, effects) without zod: the receivers and
 * their domain code read these, and the contract's schemas (functions/contract/ingress.ts, which
 * re-exports them) are built from them. A receiver that only needs a value then does not build
 * the canonical event schemas to get it (its bundle holds no zod: bundle-contents test).
 */

/** The Standard Webhooks headers (https://www.standardwebhooks.com). */
export const WEBHOOK_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;

/** A delivery whose webhook-timestamp is further than this from the service clock is refused (replay window). */
export const REPLAY_WINDOW_SECONDS = 5 * 60;

/** Receiver bodies above this size are refused with 413 before verification (an event is a few hundred bytes). */
export const INGRESS_MAX_BODY_BYTES = 16 * 1024;

/**
 * Many events in one delivery: CloudEvents' JSON batch format (JSON Event Format 1.0, section 4: a
 * JSON array of structured-mode events, this media type). The media type chooses the reading: a
 * body sent as application/cloudevents+json or application/json is one event.
 */
export const INGRESS_BATCH_MEDIA_TYPE = 'application/cloudevents-batch+json';

/**
 * At most this many events in one batch (413 above it): their reads go out together (BatchGetItem
 * takes 100 keys a request; the requests and the records' Queries are sent at once) and their
 * writes at once, so a full batch is answered in about three store round trips, far inside API
 * Gateway's 29 s and the receiver's timeout.
 */
export const INGRESS_BATCH_MAX_EVENTS = 100;

/**
 * A batch body is at most 1 MiB (413 above it): 100 events of the usual few hundred bytes fit many
 * times over, and each event keeps INGRESS_MAX_BODY_BYTES as its own limit. Far below what API
 * Gateway (10 MB) and a synchronous Lambda invocation (6 MB) take, so a refusal is the service's
 * own problem details, never the platform's.
 */
export const INGRESS_BATCH_MAX_BODY_BYTES = 1024 * 1024;

/**
 * A webhook-id: 1 to 128 characters of letters, digits, '_' and '-' (Standard Webhooks ids such as
 * msg_2KWPBgLlAfxdpx2AI54pPJ85f4W, UUIDs). Never a '.': the signed content is `id.timestamp.body`.
 */
export const WEBHOOK_ID_MAX_LENGTH = 128;
export const WEBHOOK_ID_PATTERN = `^[A-Za-z0-9_-]{1,${WEBHOOK_ID_MAX_LENGTH}}$`;

/** A webhook-timestamp: whole seconds since the Unix epoch, 1 to 12 digits. */
export const WEBHOOK_TIMESTAMP_MAX_LENGTH = 12;
export const WEBHOOK_TIMESTAMP_PATTERN = `^[0-9]{1,${WEBHOOK_TIMESTAMP_MAX_LENGTH}}$`;

/**
 * One signature of webhook-signature: its version (v1: HMAC-SHA256, v1a: Ed25519), a comma, and
 * the signature in base64 (standard alphabet, padded). The header is a space-delimited list of
 * them; entries of other versions are skipped, as the specification lets a list carry them.
 */
const SIGNATURE_VERSION = 'v1a?';
const SIGNATURE_BASE64 = '[A-Za-z0-9+/]{1,200}={0,2}';
export const WEBHOOK_SIGNATURE_ENTRY_PATTERN = `^(${SIGNATURE_VERSION}),(${SIGNATURE_BASE64})$`;
/** The receivers read the first 16 entries of webhook-signature (key rotation needs two or three). */
export const WEBHOOK_SIGNATURES_READ = 16;
/** A longer webhook-signature is refused (16 entries of the longest signature fit many times over). */
export const WEBHOOK_SIGNATURE_MAX_LENGTH = 4096;
/**
 * The whole webhook-signature as the receivers read it: among its first 16 entries (each a run of
 * characters other than a space, separated by spaces) is a v1 or v1a signature. The contract
 * declares this pattern; functions/domain/ingress/signature.ts reads the header entry by entry with
 * WEBHOOK_SIGNATURE_ENTRY_PATTERN, and a test holds the two to the same answers.
 */
export const WEBHOOK_SIGNATURE_PATTERN = `^ *([^ ]+ +){0,${WEBHOOK_SIGNATURES_READ - 1}}${SIGNATURE_VERSION},${SIGNATURE_BASE64}( |$)`;

export type ReceiverName = 'lifecycle' | 'webhook';

export interface IngressSource {
  /** Which receiver takes this source's deliveries. */
  receiver: ReceiverName;
  title: string;
  /** The canonical event types the source may send. */
  accepts: readonly string[];
}

/** The deployment setting (environment variable) naming the receivers' keys: a Secrets Manager secret. */
export const INGRESS_SECRETS_SETTING = 'INGRESS_SECRETS_ARN';

/** The lifecycle feed's source id: the service platform itself, the authority for current trust state. */
export const LIFECYCLE_SOURCE_ID = 'service-platform';

/**
 * Every source the service knows. A source is *activated* by a deployment when verification keys
 * are configured for it; a known source without keys is gated (503 SOURCE_GATED), an unknown
 * source id is 404 UNKNOWN_SOURCE.
 */
export const INGRESS_SOURCES = {
  [LIFECYCLE_SOURCE_ID]: {
    receiver: 'lifecycle',
    title: 'The service platform\'s own signed lifecycle feed (authority for current trust state).',
    accepts: ['svc.living-object.state-changed.v1', 'svc.living-object.authority-observed.v1', 'svc.credential.status-changed.v1'],
  },
  'commerce-platform': {
    receiver: 'webhook',
    title: 'The external commerce platform: source snapshots behind commercial proofs (externally gated).',
    accepts: ['svc.commercial-proof.source-snapshot.v1'],
  },
} as const satisfies Record<string, IngressSource>;
export type IngressSourceId = keyof typeof INGRESS_SOURCES;

export const WEBHOOK_SOURCE_IDS = Object.entries(INGRESS_SOURCES)
  .filter(([, s]) => s.receiver === 'webhook')
  .map(([id]) => id);

export const SOURCE_ID_PATTERN = '^[a-z][a-z0-9-]{2,63}$';

export function isIngressSource(id: string): id is IngressSourceId {
  return Object.hasOwn(INGRESS_SOURCES, id);
}

/** Where an accepted delivery stands with the sequencer (docs/ingress.md#the-pending-item). */
export const SEQUENCING_STATES = ['PENDING', 'SEQUENCED', 'SET_ASIDE'] as const;

/** What an accepted event will do once the sequencer integrates it (docs/ingress.md#rules-of-order). */
export const INGRESS_EFFECTS = ['ADVANCES_CURRENT_STATE', 'CONFIRMS_CURRENT_STATE', 'RECORDED_AS_HISTORY'] as const;
export type IngressEffect = (typeof INGRESS_EFFECTS)[number];
