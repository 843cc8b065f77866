import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { GetPublicKeyCommand, KeySpec, KeyUsageType, KMSClient, MessageType, SignCommand, SigningAlgorithmSpec } from '@aws-sdk/client-kms';
import { withoutSdkLogLines } from '../aws/sdk-log-lines';
import { encodeVerifierKey, keyIdFor } from '../domain/ledger/node-crypto';
import { checkNoteText, isValidKeyName, SIGNATURE_TYPE_ED25519, signatureLine } from '#verify/checks/note';
import { SigningKeyError, type CheckpointSigner } from './signer';

/**
 * Pure Ed25519 (RFC 8032): KMS hashes the raw message itself, so the signature is the one any
 * Ed25519 verifier (Go's sumdb/note, node:crypto, the browser check) expects. ED25519_PH_SHA_512
 * is Ed25519ph, a different signature over a pre-hash: no existing verifier would accept it.
 */
export const KMS_SIGNING_ALGORITHM = SigningAlgorithmSpec.ED25519_SHA_512;

/** KMS signs a RAW message of at most this many bytes; a checkpoint is a few hundred. */
const KMS_MAX_RAW_MESSAGE_BYTES = 4096;

export interface KmsSignerOptions {
  /** Key id, key ARN, alias name or alias ARN of an ECC_NIST_EDWARDS25519 SIGN_VERIFY key. */
  keyId: string;
  /** The log's origin: the signed-note key name. */
  origin: string;
  /** Default: a client for the ambient region and credentials. */
  client?: KMSClient;
}

async function ask<T>(what: string, keyId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // Network failures and KMS refusals (no grant, disabled key) name the key and the call, so a
    // sequencer log line or a loader error says what to fix.
    const reason = (error as Error).message || (error as Error).name || String(error);
    throw new SigningKeyError(`AWS KMS ${what} for the ledger key ${keyId} failed: ${reason}`);
  }
}

/** The raw 32-byte Ed25519 public key of a DER SubjectPublicKeyInfo, parsed (never sliced). */
function ed25519PublicKey(spki: Uint8Array, keyId: string): { key: KeyObject; raw: Buffer } {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  } catch (error) {
    throw new SigningKeyError(`the public key KMS returned for ${keyId} is not a DER SubjectPublicKeyInfo (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new SigningKeyError(`the public key of ${keyId} is ${key.asymmetricKeyType}, not Ed25519`);
  const raw = Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url');
  if (raw.length !== 32) throw new SigningKeyError(`the Ed25519 public key of ${keyId} has ${raw.length} bytes, not 32`);
  return { key, raw };
}

/**
 * The checkpoint signer backed by an AWS KMS Ed25519 key: the private key never leaves KMS.
 * GetPublicKey is asked once (the public half is what forms the verifier key and the key id of
 * every signature line); each note is then one Sign call. Every signature is verified here against
 * that public key before it is used, so a wrong key or algorithm fails loudly instead of
 * publishing a checkpoint no verifier accepts.
 */
export async function kmsCheckpointSigner(options: KmsSignerOptions): Promise<CheckpointSigner> {
  const { keyId, origin } = options;
  if (!isValidKeyName(origin)) {
    throw new SigningKeyError(
      `the ledger origin ${JSON.stringify(origin)} is not a valid key name (non-empty, no spaces or "+", e.g. trust.example.com/ledger): set ledgerOrigin (docs/ledger.md)`,
    );
  }
  if (!keyId) throw new SigningKeyError('no KMS key is named for the ledger (its key id or ARN)');
  const client = options.client ?? withoutSdkLogLines(new KMSClient({}));

  const described = await ask('GetPublicKey', keyId, () => client.send(new GetPublicKeyCommand({ KeyId: keyId })));
  if (described.KeySpec !== KeySpec.ECC_NIST_EDWARDS25519) {
    throw new SigningKeyError(`the KMS key ${keyId} has key spec ${described.KeySpec}; the ledger needs ${KeySpec.ECC_NIST_EDWARDS25519} (Ed25519)`);
  }
  if (described.KeyUsage !== KeyUsageType.SIGN_VERIFY) {
    throw new SigningKeyError(`the KMS key ${keyId} has key usage ${described.KeyUsage}; the ledger needs ${KeyUsageType.SIGN_VERIFY}`);
  }
  if (described.SigningAlgorithms && !described.SigningAlgorithms.includes(KMS_SIGNING_ALGORITHM)) {
    throw new SigningKeyError(`the KMS key ${keyId} does not offer ${KMS_SIGNING_ALGORITHM} (it offers ${described.SigningAlgorithms.join(', ')})`);
  }
  if (!described.PublicKey) throw new SigningKeyError(`KMS returned no public key for ${keyId}`);
  const publicKey = ed25519PublicKey(described.PublicKey, keyId);
  const keyIdOfNote = keyIdFor(origin, SIGNATURE_TYPE_ED25519, publicKey.raw);

  return {
    name: origin,
    keyId: keyIdOfNote,
    verifierKey: encodeVerifierKey(origin, publicKey.raw),
    async signNoteAsync(text: string): Promise<string> {
      checkNoteText(text);
      const message = Buffer.from(text, 'utf8');
      if (message.length > KMS_MAX_RAW_MESSAGE_BYTES) throw new SigningKeyError(`a note of ${message.length} bytes is more than KMS signs as a raw message (${KMS_MAX_RAW_MESSAGE_BYTES})`);
      const out = await ask('Sign', keyId, () =>
        client.send(new SignCommand({ KeyId: keyId, Message: message, MessageType: MessageType.RAW, SigningAlgorithm: KMS_SIGNING_ALGORITHM })),
      );
      const signature = out.Signature;
      if (!signature || signature.length !== 64 || !verify(null, message, publicKey.key, signature)) {
        throw new SigningKeyError(
          `the signature KMS returned for ${keyId} does not verify with its Ed25519 public key (${signature ? `${signature.length} bytes` : 'none'}, algorithm ${out.SigningAlgorithm ?? 'not named'}); nothing was signed`,
        );
      }
      return `${text}\n${signatureLine(origin, keyIdOfNote, signature)}`;
    },
  };
}
