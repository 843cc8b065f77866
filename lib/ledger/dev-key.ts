import { randomUUID } from 'node:crypto';
import { appendFile, link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateSignerKey, signerFromKey, type LedgerSigner } from '../../functions/ledger-writer/signer';

/**
 * The development signing key. Locally the loader keeps an Ed25519 key beside the data: inside
 * the --data directory, or in .data/ at the repository root (LOCAL_DATA_DIR when set) otherwise (so the
 * key, and the verifier key tests and curl users see, survive restarts). It is created on first
 * use, readable only by its owner. It signs nothing outside this machine; in AWS the loader and
 * the sequencer sign with the stack's KMS key (docs/ledger.md).
 */
export const DEV_LEDGER_ORIGIN = 'localhost/public-trust-verification-service/dev-ledger';
export const DEV_KEY_FILE = 'ledger-signing-key.txt';
export const DEFAULT_DEV_KEY_DIR = process.env.LOCAL_DATA_DIR ? path.resolve(process.env.LOCAL_DATA_DIR) : path.resolve(__dirname, '../../.data');

/** The verifier keys of development logs a key change retired (public), one a line: still trusted for what they signed. */
export const RETIRED_DEV_KEYS_FILE = 'ledger-retired-verifier-keys.txt';

/** The development logs a key change retired, `<origin>=<final tree size>` one a line: the local host's LEDGER_RETIRED_LOGS. */
export const RETIRED_DEV_LOGS_FILE = 'ledger-retired-logs.txt';

export interface DevSigner {
  signer: LedgerSigner;
  file: string;
  /** Verifier keys of the development logs this key succeeded (npm run rotate), oldest first. */
  retiredVerifierKeys: string[];
  /** Those logs with their final tree sizes (`<origin>=<size>`), oldest first. */
  retiredLogs: string[];
}

async function linesIn(dir: string, name: string): Promise<string[]> {
  try {
    return (await readFile(path.join(dir, name), 'utf8')).split('\n').filter((line) => line.trim() !== '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function signerIn(dir: string, file: string): Promise<DevSigner> {
  return { signer: signerFromKey(await readFile(file, 'utf8')), file, retiredVerifierKeys: await linesIn(dir, RETIRED_DEV_KEYS_FILE), retiredLogs: await linesIn(dir, RETIRED_DEV_LOGS_FILE) };
}

/**
 * After a key change of a development log (npm run rotate with --endpoint): the new key becomes
 * the development key (replaced atomically), and the old one's verifier key is kept as retired, so
 * the local host keeps trusting what it signed. The old private key is not kept: it signs nothing any more.
 */
export async function replaceDevKey(dir: string, newKey: string, retiredVerifierKey: string, retiredLog: { origin: string; treeSize: number }): Promise<void> {
  await appendFile(path.join(dir, RETIRED_DEV_KEYS_FILE), `${retiredVerifierKey}\n`);
  await appendFile(path.join(dir, RETIRED_DEV_LOGS_FILE), `${retiredLog.origin}=${retiredLog.treeSize}\n`);
  const file = path.join(dir, DEV_KEY_FILE);
  const temporary = `${file}.${randomUUID()}.tmp`;
  await writeFile(temporary, `${newKey.trim()}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/**
 * Reads the key in `dir`, creating it when absent. Creation is atomic (write a private temporary
 * file, then hard-link it into place, which fails if another process won), so concurrent test
 * runs and servers starting together all end up with one key.
 */
export async function devLedgerSigner(dir = DEFAULT_DEV_KEY_DIR): Promise<DevSigner> {
  const file = path.join(dir, DEV_KEY_FILE);
  try {
    return await signerIn(dir, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dir, { recursive: true });
  const temporary = `${file}.${randomUUID()}.tmp`;
  await writeFile(temporary, `${generateSignerKey(DEV_LEDGER_ORIGIN)}\n`, { mode: 0o600 });
  try {
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
  return await signerIn(dir, file);
}
