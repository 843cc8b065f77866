import { randomBytes } from 'node:crypto';
import type { Caller } from './evaluator';

/**
 * Temporary credentials for each role session the runner starts: every function process, the
 * credentials role of an API Gateway integration, the loader role of a demo load. As STS gives
 * them (an `ASIA...` access key id, a secret, a session token), so the SDK signs with them as on
 * Lambda, and the local endpoints know the caller from the access key id of the signature.
 */
export interface IssuedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  caller: Caller;
  /** Who uses them, for the log: a function's name, "API Gateway", "loader". */
  label: string;
}

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function accessKeyId(): string {
  const bytes = randomBytes(16);
  return `ASIA${[...bytes].map((b) => KEY_ALPHABET[b % KEY_ALPHABET.length]).join('')}`;
}

export class CredentialIssuer {
  private readonly byKeyId = new Map<string, IssuedCredentials>();

  issue(caller: Caller, label: string): IssuedCredentials {
    const credentials: IssuedCredentials = {
      accessKeyId: accessKeyId(),
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(48).toString('base64'),
      caller,
      label,
    };
    this.byKeyId.set(credentials.accessKeyId, credentials);
    return credentials;
  }

  lookup(accessKeyId: string): IssuedCredentials | undefined {
    return this.byKeyId.get(accessKeyId);
  }
}
