import { createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import http from 'node:http';
import { encodeVerifierKey } from '../../functions/domain/ledger/node-crypto';
import { keepingIdleConnections, listenOnLoopback } from './listen';

/**
 * A stand-in for AWS KMS holding one ECC_NIST_EDWARDS25519 SIGN_VERIFY key, speaking the KMS JSON
 * protocol (`X-Amz-Target: TrentService.*`, `application/x-amz-json-1.1`) over HTTP, so the real
 * SDK client talks to it through `AWS_ENDPOINT_URL_KMS` or an explicit endpoint. There is no local
 * KMS; what it answers is what KMS answers for such a key: GetPublicKey gives the DER
 * SubjectPublicKeyInfo, Sign gives pure Ed25519 signatures of RAW messages (ED25519_SHA_512), and
 * everything else (another key, message type or algorithm) is refused as KMS refuses it.
 */
export interface KmsRequest {
  target: string;
  body: Record<string, string>;
}

export interface KmsStandIn {
  /** `http://127.0.0.1:PORT` */
  endpoint: string;
  keyId: string;
  /** Every request received, in order (failed ones included). */
  requests: KmsRequest[];
  /** The key's raw 32-byte Ed25519 public key. */
  publicKey: Buffer;
  /** The signed-note verifier key of this key for a log origin: from the stand-in's own public key, not from what a signer reports. */
  verifierKey(origin: string): string;
  /** From now on answer every request with this HTTP status and KMS's internal error (null: serve again). */
  failWith(status: number | null): void;
  close(): Promise<void>;
}

/**
 * `keyId` is the key's ARN; a request may name it by that ARN, by the key id at its end, or by one
 * of `aliases` (alias/NAME, or the alias ARN), as KMS accepts for Sign and GetPublicKey.
 */
export async function startKmsStandIn(keyId = 'arn:aws:kms:eu-central-1:111122223333:key/ledger-test', options: { aliases?: readonly string[] } = {}): Promise<KmsStandIn> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const publicKey = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x!, 'base64url');
  const requests: KmsRequest[] = [];
  let failure: number | null = null;
  const region = keyId.split(':')[3];
  const account = keyId.split(':')[4];
  const names = new Set([keyId, keyId.slice(keyId.lastIndexOf('/') + 1)]);
  for (const alias of options.aliases ?? []) names.add(alias).add(`arn:aws:kms:${region}:${account}:${alias}`);

  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target']);
      let body: Record<string, string>;
      try {
        body = JSON.parse(text) as Record<string, string>;
      } catch {
        body = {};
      }
      requests.push({ target, body });
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (failure !== null) {
        res.statusCode = failure;
        res.end(JSON.stringify({ __type: 'KMSInternalException', message: 'the stand-in is failing on purpose' }));
      } else if (!names.has(body.KeyId)) {
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: 'NotFoundException', message: `Key '${body.KeyId}' does not exist` }));
      } else if (target === 'TrentService.GetPublicKey') {
        res.end(JSON.stringify({ KeyId: keyId, PublicKey: spki.toString('base64'), KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY', SigningAlgorithms: ['ED25519_SHA_512', 'ED25519_PH_SHA_512'] }));
      } else if (target === 'TrentService.Sign' && body.MessageType === 'RAW' && body.SigningAlgorithm === 'ED25519_SHA_512') {
        const signature = sign(null, Buffer.from(body.Message, 'base64'), privateKey);
        res.end(JSON.stringify({ KeyId: keyId, Signature: signature.toString('base64'), SigningAlgorithm: body.SigningAlgorithm }));
      } else {
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: 'ValidationException', message: `not served here: ${target} ${body.MessageType} ${body.SigningAlgorithm}` }));
      }
    });
  });
  const listening = await listenOnLoopback(keepingIdleConnections(server));

  return {
    endpoint: listening.url,
    keyId,
    requests,
    publicKey,
    verifierKey: (origin) => encodeVerifierKey(origin, publicKey),
    failWith(status) {
      failure = status;
    },
    close: listening.close,
  };
}
