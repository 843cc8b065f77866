import type { LedgerDescription } from '../../contract/schemas/ledger';
import { parseCheckpointText } from '#verify/checks/checkpoint';
import { encodeBase64 } from '#verify/checks/encoding';
import { EVIDENCE_FORMAT } from '#verify/checks/evidence-format';
import { parseVerifierKey, verifyNote } from './node-crypto';
import { keyIdHex, parseNote, type VerifierKey } from '#verify/checks/note';

export const LEDGER_HASHING = {
  tree: 'RFC 9162 §2.1 Merkle tree, SHA-256',
  leaf: 'SHA-256(0x00 || leaf data)',
  node: 'SHA-256(0x01 || left || right)',
  leafData: 'RFC 8785 (JCS) canonical JSON, UTF-8, of the public record version: the `proof` or `object` of a response',
};

export const LEDGER_FORMATS = {
  checkpoint: 'https://c2sp.org/tlog-checkpoint',
  signedNote: 'https://c2sp.org/signed-note (Ed25519)',
  verifierKey: '<name>+<hex key id>+<base64(0x01 || public key)>',
  evidence: `${EVIDENCE_FORMAT}: version, origin, leafIndex, treeSize, leafHash, inclusionProof, checkpoint`,
};

/**
 * What anyone needs to verify evidence offline. The keys come from configuration (never from the
 * store, whose contents they judge); the checkpoint from the store, checked against those keys.
 */
/** A log of the table's chain as the description lists it: the current one last. */
export interface DescribedLog {
  origin: string | null;
  treeSize: number;
  checkpoint: string | null;
  tilesDir?: string;
}

export function ledgerDescription(trustedKeys: string[], checkpointNote: string | null, monitoringPrefix: string, chain: readonly DescribedLog[] = []): LedgerDescription {
  const keys: VerifierKey[] = [];
  for (const text of trustedKeys) {
    try {
      keys.push(parseVerifierKey(text));
    } catch {
      // A malformed configured key verifies nothing; it is left out rather than published.
    }
  }
  let latestCheckpoint: LedgerDescription['latestCheckpoint'] = null;
  if (checkpointNote) {
    try {
      const checkpoint = parseCheckpointText(parseNote(checkpointNote).text);
      latestCheckpoint = {
        note: checkpointNote,
        origin: checkpoint.origin,
        treeSize: checkpoint.treeSize,
        rootHash: encodeBase64(checkpoint.rootHash),
        signatureVerified: keys.length > 0 && verifyNote(checkpointNote, keys).ok,
      };
    } catch {
      latestCheckpoint = null;
    }
  }
  const origin = latestCheckpoint?.origin ?? keys[0]?.name ?? null;
  return {
    schemaVersion: 'svc.ledger.v1',
    status: keys.length === 0 ? 'NOT_CONFIGURED' : latestCheckpoint ? 'ACTIVE' : 'EMPTY',
    origin,
    verifierKeys: keys.map((k) => ({
      name: k.name,
      keyId: keyIdHex(k.keyId),
      algorithm: 'Ed25519' as const,
      publicKey: encodeBase64(k.publicKey),
      verifierKey: k.encoded,
    })),
    latestCheckpoint,
    logs: chain.flatMap((log, at) =>
      log.origin
        ? [
            {
              origin: log.origin,
              role: at === chain.length - 1 ? ('current' as const) : ('retired' as const),
              verifierKey: keys.find((k) => k.name === log.origin)?.encoded ?? null,
              validUpToTreeSize: at === chain.length - 1 ? null : log.treeSize,
              finalCheckpoint: at === chain.length - 1 ? null : log.checkpoint,
              monitoringPrefix: `${monitoringPrefix}${log.tilesDir ?? ''}`,
            },
          ]
        : [],
    ),
    hashing: LEDGER_HASHING,
    formats: LEDGER_FORMATS,
    tiles: {
      format: 'https://c2sp.org/tlog-tiles',
      monitoringPrefix: `${monitoringPrefix}${chain.at(-1)?.tilesDir ?? ''}`,
      tileHeight: 8,
      entries: "The leaf data: RFC 8785 canonical JSON of each logged record version, as responses show it (an entry's leaf hash is SHA-256(0x00 || entry)).",
      howToMonitor:
        "`public-trust monitor <this service's base URL> --state FILE --key <verifier key>` (the @public-trust/verify package; npm run monitor in the service's repository): " +
        'verifies the checkpoint, its consistency with the last one seen, every tile and every entry.',
    },
    howToVerify:
      'Evidence proves integrity only, never authority or current lifecycle. Re-hash the record shown, walk its inclusion proof to the ' +
      'checkpoint root and check the checkpoint signature with a verifier key above, pinned: `public-trust verify <response URL or file> --key <verifier key>`, ' +
      'or verifyEvidence in your own code (the @public-trust/verify package; npm run verify in the service\'s repository).',
    disclosure: { class: 'PUBLIC_LEDGER', containsCustomerPii: false, containsPaymentAccountData: false },
  };
}
