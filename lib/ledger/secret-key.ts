import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { signerFromKey, SigningKeyError, type LedgerSigner } from '../../functions/ledger-writer/signer';

export interface SecretSource {
  secretId: string;
  region?: string;
  /** A Secrets Manager-compatible endpoint (tests); AWS otherwise. */
  endpoint?: string;
}

/**
 * The production signing key, held in Secrets Manager where only the loading role may read it
 * (no read function has access). The secret's string is the C2SP signer key
 * `PRIVATE+KEY+<origin>+<key id>+<base64>`, or a JSON object holding it as `signingKey`.
 */
export async function signerFromSecret(source: SecretSource): Promise<LedgerSigner> {
  const client = new SecretsManagerClient({
    ...(source.region ? { region: source.region } : {}),
    ...(source.endpoint ? { endpoint: source.endpoint } : {}),
  });
  try {
    const out = await client.send(new GetSecretValueCommand({ SecretId: source.secretId }));
    let text = out.SecretString?.trim();
    if (!text) throw new SigningKeyError(`the secret ${source.secretId} holds no string value`);
    if (text.startsWith('{')) {
      try {
        text = String((JSON.parse(text) as { signingKey?: unknown }).signingKey ?? '');
      } catch {
        throw new SigningKeyError(`the secret ${source.secretId} is JSON without a signingKey field`);
      }
    }
    try {
      return signerFromKey(text);
    } catch (error) {
      throw new SigningKeyError(
        `the secret ${source.secretId} does not hold a ledger signing key (${(error as Error).message}); ` +
          'create one with `npm run load -- --new-signing-key ORIGIN` and store it in the secret',
      );
    }
  } finally {
    client.destroy();
  }
}
