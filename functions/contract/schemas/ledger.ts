import * as z from 'zod';
import { component } from '../registry';
import { MinimalDisclosure } from './common';

const Base64Hash = z.string().describe('SHA-256 hash, standard base64 (44 characters).');

export const LedgerEvidence = component(
  'LedgerEvidence',
  z
    .object({
      format: z.literal('svc.ledger-evidence.v1'),
      version: z.number().int().min(1).describe('The record version the leaf holds.'),
      origin: z.string().describe("The log's origin: first line of the checkpoint and name of its signing key."),
      leafIndex: z.number().int().min(0),
      treeSize: z.number().int().min(1),
      leafHash: Base64Hash.describe('SHA-256(0x00 || RFC 8785 canonical JSON of the record version shown).'),
      inclusionProof: z.array(Base64Hash).describe('RFC 9162 inclusion path, sibling hashes from the leaf up.'),
      checkpoint: z.string().describe('C2SP tlog-checkpoint text in a C2SP signed note, signed with Ed25519 by the log key.'),
    })
    .loose(),
  'Ledger evidence for one record version: integrity only, never authority. Verify offline with the log key published at /v1/ledger.',
);

export const LoggedRecord = component(
  'LoggedRecord',
  z.object({
    record: z.object({}).loose().describe('The record version exactly as the ledger logged it: its RFC 8785 canonical JSON is the leaf.'),
    evidence: LedgerEvidence.nullable().describe('Its ledger evidence; null when none is held.'),
  }),
  'A record version as the ledger logged it, with its evidence (integrity only): what a verifier re-checks offline with the log key published at /v1/ledger.',
);

export const LedgerCheck = component(
  'LedgerCheck',
  z.object({
    name: z.enum(['evidence-format', 'record-version', 'canonical-hash', 'inclusion-proof', 'checkpoint-signature']),
    ok: z.boolean(),
    detail: z.string(),
  }),
  'One check the service ran on the evidence (anyone can re-run it offline).',
);

export const LedgerDescription = component(
  'LedgerDescription',
  z
    .object({
      schemaVersion: z.literal('svc.ledger.v1'),
      status: z.enum(['ACTIVE', 'EMPTY', 'NOT_CONFIGURED']).describe('NOT_CONFIGURED: no verifier key is configured, so no evidence is confirmed.'),
      origin: z.string().nullable(),
      verifierKeys: z.array(
        z.object({
          name: z.string(),
          keyId: z.string().describe('Eight hex digits (C2SP key id).'),
          algorithm: z.literal('Ed25519'),
          publicKey: z.string().describe('Raw 32-byte Ed25519 public key, base64.'),
          verifierKey: z.string().describe('C2SP verifier key: <name>+<hex key id>+<base64(0x01 || public key)>.'),
        }),
      ),
      latestCheckpoint: z
        .object({
          note: z.string(),
          origin: z.string(),
          treeSize: z.number().int(),
          rootHash: z.string(),
          signatureVerified: z.boolean(),
        })
        .nullable(),
      hashing: z.object({ tree: z.string(), leaf: z.string(), node: z.string(), leafData: z.string() }).loose(),
      formats: z.object({ checkpoint: z.string(), signedNote: z.string(), verifierKey: z.string(), evidence: z.string() }).loose(),
      tiles: z
        .object({
          format: z.literal('https://c2sp.org/tlog-tiles'),
          monitoringPrefix: z
            .string()
            .describe('Absolute URL ending in /: <prefix>checkpoint, <prefix>tile/<L>/<N>[.p/<W>], <prefix>tile/entries/<N>[.p/<W>] and <prefix>checkpoints/<tree size>.'),
          tileHeight: z.literal(8),
          entries: z.string().describe('What an entry of an entry bundle holds.'),
          howToMonitor: z.string(),
        })
        .describe('The log as a C2SP tlog-tiles log, for monitors and witnesses.'),
      logs: z
        .array(
          z.object({
            origin: z.string(),
            role: z.enum(['current', 'retired']).describe('current: the log the service appends to; retired: a log ended by a key change, frozen at its final checkpoint.'),
            verifierKey: z.string().nullable().describe('The configured verifier key named by this origin (null when none is).'),
            validUpToTreeSize: z
              .number()
              .int()
              .nullable()
              .describe("A retired log's final tree size: its key is valid for checkpoints of at most this size, and a larger or inconsistent one is a forgery. Null for the current log."),
            finalCheckpoint: z.string().nullable().describe("A retired log's final signed checkpoint; its last entry names its successor, whose first entry binds this checkpoint."),
            monitoringPrefix: z.string().describe('Where its C2SP tlog-tiles log is served: an absolute URL ending in /.'),
          }),
        )
        .describe('Every log of this service, first to current: a key change ends a log and begins another (docs/ledger.md#when-the-key-must-change).'),
      howToVerify: z.string(),
      disclosure: MinimalDisclosure,
    })
    .loose(),
  "The log's origin, verifier key and latest signed checkpoint: what anyone needs to verify evidence offline.",
);
export type LedgerDescription = z.infer<typeof LedgerDescription>;

export const LedgerTreeSize = z.coerce
  .number()
  .int()
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .describe('A tree size of the log (a checkpoint\'s second line): a whole number from 1 to the current tree size.');

export const LedgerConsistency = component(
  'LedgerConsistency',
  z.object({
    from: z.number().int().min(1).describe('The earlier tree size.'),
    to: z.number().int().min(1).describe('The later tree size (at most the current one).'),
    proof: z.array(Base64Hash).describe('RFC 9162 §2.1.4 consistency proof, PROOF(from, D[to]); empty when from = to.'),
  }),
  'Proof that the log of size `from` is a prefix of the log of size `to`: it only grew. Verify it against the root hashes of the two checkpoints (RFC 9162 §2.1.4.2).',
);

export const LedgerTilePath = z
  .string()
  .max(64)
  .regex(/^(0|[1-9][0-9]?|entries)\/(x[0-9]{3}\/)*[0-9]{3}(\.p\/[1-9][0-9]{0,2})?$/)
  .describe(
    'A C2SP tlog-tiles path below tile/, several segments: <L>/<N>[.p/<W>] for a hash tile of level L, entries/<N>[.p/<W>] for an entry bundle; ' +
      'N in zero-padded three-digit groups, all but the last prefixed with x (1234067 is x001/x234/067).',
  );

export const LedgerSuccessorPath = z
  .string()
  .max(96)
  .regex(/^[0-9a-f]{16}\/(checkpoint|checkpoints\/[1-9][0-9]{0,15}|tile\/(0|[1-9][0-9]?|entries)\/(x[0-9]{3}\/)*[0-9]{3}(\.p\/[1-9][0-9]{0,2})?)$/)
  .describe("A resource of a successor log: <id>/ (16 hex digits of SHA-256 of its origin) then checkpoint, checkpoints/<size> or a tile path as below tile/.");

export const LedgerCheckpointSize = z
  .string()
  .max(16)
  .regex(/^[1-9][0-9]{0,15}$/)
  .describe('A tree size for which the log published a checkpoint (a whole number, no leading zeros).');

export const LedgerCheckpointNote = component(
  'LedgerCheckpointNote',
  z.string(),
  'A C2SP tlog-checkpoint in a signed note: <origin>\\n<tree size>\\n<base64 root hash>\\n, a blank line, then the log signature and any witness cosignatures.',
);

export const LedgerTile = component(
  'LedgerTile',
  z.string().describe('Binary (application/octet-stream).'),
  'A C2SP tlog-tiles resource: a hash tile (1..256 hashes of 32 bytes) or an entry bundle (each entry as a big-endian uint16 length and its bytes).',
);
