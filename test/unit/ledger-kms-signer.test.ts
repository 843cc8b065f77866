import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { GetPublicKeyCommand, KMSClient, SignCommand, type GetPublicKeyCommandOutput, type SignCommandInput } from '@aws-sdk/client-kms';
import { checkpointText } from '#verify/checks/checkpoint';
import { parseVerifierKey, verifyNote } from '../../functions/domain/ledger/node-crypto';
import { KMS_SIGNING_ALGORITHM, kmsCheckpointSigner } from '../../functions/ledger-writer/kms-signer';
import { formatSignerKey, signerFromKey, SigningKeyError } from '../../functions/ledger-writer/signer';
import { privateKeyFromSeed } from '#verify/node/node-crypto';

/*
 * No KMS runs locally, so KMS is played by a KMSClient whose `send` answers GetPublicKey and Sign
 * from a node:crypto Ed25519 key, as KMS does for an ECC_NIST_EDWARDS25519 key: the public key as
 * a DER SubjectPublicKeyInfo, and a pure Ed25519 signature of the raw message. It records every
 * request, so the tests see exactly what the signer asks of KMS.
 */

// RFC 8032 section 7.1, test 1: a published seed, so the signatures here are reproducible anywhere.
const SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
const RFC_PUBLIC_KEY = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const ORIGIN = 'trust.example.com/ledger';
const KEY_ARN = 'arn:aws:kms:eu-central-1:111122223333:key/0b8a5e8e-ledger';
const TEXT = checkpointText({ origin: ORIGIN, treeSize: 34, rootHash: Buffer.alloc(32, 7), extensions: [] });

interface KmsDouble {
  client: KMSClient;
  requests: { command: string; input: Record<string, unknown> }[];
}

interface DoubleOptions {
  privateKey?: KeyObject;
  keySpec?: string;
  keyUsage?: string;
  /** The public key it reports, when it is not the signing key's (a DER SPKI). */
  publicKeyDer?: Buffer;
  /** Rewrites the signature it returns. */
  tamper?: (signature: Buffer) => Buffer;
}

function kmsDouble(options: DoubleOptions = {}): KmsDouble {
  const privateKey = options.privateKey ?? privateKeyFromSeed(SEED);
  const requests: KmsDouble['requests'] = [];
  const client = new KMSClient({ region: 'eu-central-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const answer = async (command: unknown): Promise<unknown> => {
    if (command instanceof GetPublicKeyCommand) {
      requests.push({ command: 'GetPublicKey', input: { ...command.input } });
      const out: Partial<GetPublicKeyCommandOutput> = {
        KeyId: KEY_ARN,
        PublicKey: new Uint8Array(options.publicKeyDer ?? createPublicKey(privateKey).export({ format: 'der', type: 'spki' })),
        KeySpec: (options.keySpec ?? 'ECC_NIST_EDWARDS25519') as GetPublicKeyCommandOutput['KeySpec'],
        KeyUsage: (options.keyUsage ?? 'SIGN_VERIFY') as GetPublicKeyCommandOutput['KeyUsage'],
        SigningAlgorithms: ['ED25519_SHA_512', 'ED25519_PH_SHA_512'],
      };
      return out;
    }
    if (command instanceof SignCommand) {
      const input = command.input as SignCommandInput;
      requests.push({ command: 'Sign', input: { ...input } });
      // KMS signs pure Ed25519 only for RAW messages with ED25519_SHA_512; anything else here is a request the test must catch.
      if (input.MessageType !== 'RAW' || input.SigningAlgorithm !== 'ED25519_SHA_512') throw new Error(`unexpected Sign request ${input.MessageType} ${input.SigningAlgorithm}`);
      const signature = sign(null, Buffer.from(input.Message!), privateKey);
      return { KeyId: KEY_ARN, Signature: new Uint8Array(options.tamper ? options.tamper(signature) : signature), SigningAlgorithm: input.SigningAlgorithm };
    }
    throw new Error(`the signer asked KMS for ${(command as object).constructor.name}`);
  };
  client.send = answer as KMSClient['send'];
  return { client, requests };
}

describe('kmsCheckpointSigner', () => {
  it('asks for the public key once, and signs each note with one RAW, pure Ed25519 Sign request', async () => {
    const kms = kmsDouble();
    const signer = await kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kms.client });
    await signer.signNoteAsync(TEXT);
    await signer.signNoteAsync(checkpointText({ origin: ORIGIN, treeSize: 35, rootHash: Buffer.alloc(32, 8), extensions: [] }));
    expect(kms.requests.map((r) => r.command)).toEqual(['GetPublicKey', 'Sign', 'Sign']);
    expect(kms.requests[0].input).toEqual({ KeyId: KEY_ARN });
    for (const { input } of kms.requests.slice(1)) {
      expect(input).toMatchObject({ KeyId: KEY_ARN, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' });
    }
    expect(Buffer.from(kms.requests[1].input.Message as Uint8Array).toString('utf8')).toBe(TEXT);
    // Not the pre-hash variant, which no Ed25519 verifier accepts.
    expect(KMS_SIGNING_ALGORITHM).toBe('ED25519_SHA_512');
  });

  it('takes the raw public key from the DER SubjectPublicKeyInfo (the RFC 8032 key for its seed)', async () => {
    const signer = await kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kmsDouble().client });
    const verifier = parseVerifierKey(signer.verifierKey);
    expect(Buffer.from(verifier.publicKey).toString('hex')).toBe(RFC_PUBLIC_KEY);
    expect(verifier.name).toBe(ORIGIN);
    expect(verifier.keyId).toBe(signer.keyId);
    expect(signer.name).toBe(ORIGIN);
  });

  it('signs notes that verify with its verifier key', async () => {
    const signer = await kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kmsDouble().client });
    const note = await signer.signNoteAsync(TEXT);
    const result = verifyNote(note, [parseVerifierKey(signer.verifierKey)]);
    expect(result).toMatchObject({ ok: true });
    // And a note whose text changed does not.
    expect(verifyNote(note.replace('\n34\n', '\n35\n'), [parseVerifierKey(signer.verifierKey)])).toMatchObject({ ok: false });
  });

  it('gives the note, verifier key and key id a key file with the same seed gives, byte for byte (existing verifiers keep working)', async () => {
    const fileSigner = signerFromKey(formatSignerKey(ORIGIN, SEED));
    const kmsSigner = await kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kmsDouble().client });
    expect(kmsSigner.verifierKey).toBe(fileSigner.verifierKey);
    expect(kmsSigner.keyId).toBe(fileSigner.keyId);
    expect(await kmsSigner.signNoteAsync(TEXT)).toBe(fileSigner.signNote(TEXT));
  });

  it('refuses a key of another spec or usage, or whose public key is not Ed25519', async () => {
    await expect(kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kmsDouble({ keySpec: 'ECC_NIST_P256' }).client })).rejects.toThrow(
      /key spec ECC_NIST_P256; the ledger needs ECC_NIST_EDWARDS25519/,
    );
    await expect(kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kmsDouble({ keyUsage: 'ENCRYPT_DECRYPT' }).client })).rejects.toThrow(
      /key usage ENCRYPT_DECRYPT; the ledger needs SIGN_VERIFY/,
    );
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'der', type: 'spki' });
    await expect(kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kmsDouble({ publicKeyDer: p256 }).client })).rejects.toThrow(/is ec, not Ed25519/);
    await expect(kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kmsDouble({ publicKeyDer: Buffer.from('not der') }).client })).rejects.toThrow(
      /not a DER SubjectPublicKeyInfo/,
    );
  });

  it('refuses an origin that cannot be a key name, before asking KMS anything', async () => {
    for (const origin of ['', 'trust example', 'a+b']) {
      const kms = kmsDouble();
      await expect(kmsCheckpointSigner({ keyId: KEY_ARN, origin, client: kms.client })).rejects.toThrow(/ledgerOrigin/);
      expect(kms.requests).toEqual([]);
    }
  });

  it('never returns a note whose signature does not verify with the public key', async () => {
    const flipped = kmsDouble({ tamper: (s) => Buffer.from(s.map((b, i) => (i === 10 ? b ^ 1 : b))) });
    const signer = await kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: flipped.client });
    await expect(signer.signNoteAsync(TEXT)).rejects.toThrow(/does not verify with its Ed25519 public key/);
    // A key that signs but is not the key whose public half was reported (a wrong key id or alias behind the same name).
    const mismatched = kmsDouble({ privateKey: generateKeyPairSync('ed25519').privateKey, publicKeyDer: createPublicKey(privateKeyFromSeed(SEED)).export({ format: 'der', type: 'spki' }) });
    const wrong = await kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: mismatched.client });
    await expect(wrong.signNoteAsync(TEXT)).rejects.toThrow(SigningKeyError);
    const short = await kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kmsDouble({ tamper: (s) => s.subarray(0, 63) }).client });
    await expect(short.signNoteAsync(TEXT)).rejects.toThrow(/63 bytes/);
  });

  it('checks the note text before asking KMS to sign it', async () => {
    const kms = kmsDouble();
    const signer = await kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kms.client });
    await expect(signer.signNoteAsync('no final newline')).rejects.toThrow(/must end with a newline/);
    await expect(signer.signNoteAsync(`${'x'.repeat(5000)}\n`)).rejects.toThrow(/more than KMS signs/);
    expect(kms.requests.map((r) => r.command)).toEqual(['GetPublicKey']);
  });

  it('says which call failed, for which key, when KMS cannot be reached (the real SDK client, a closed port)', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port: p } = server.address() as AddressInfo;
        server.close(() => resolve(p));
      });
    });
    const client = new KMSClient({
      region: 'eu-central-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    try {
      const failure = await kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SigningKeyError);
      expect((failure as Error).message).toMatch(new RegExp(`^AWS KMS GetPublicKey for the ledger key ${KEY_ARN} failed: .*ECONNREFUSED`));
    } finally {
      client.destroy();
    }
  });

  it('says so when KMS refuses to sign (no grant), naming the key', async () => {
    const kms = kmsDouble();
    const signer = await kmsCheckpointSigner({ keyId: KEY_ARN, origin: ORIGIN, client: kms.client });
    const denied = Object.assign(new Error('User: arn:aws:sts::111122223333:assumed-role/x is not authorized to perform: kms:Sign'), { name: 'AccessDeniedException' });
    kms.client.send = (async () => {
      throw denied;
    }) as KMSClient['send'];
    await expect(signer.signNoteAsync(TEXT)).rejects.toThrow(`AWS KMS Sign for the ledger key ${KEY_ARN} failed: User: arn:aws:sts::111122223333:assumed-role/x is not authorized to perform: kms:Sign`);
  });
});
