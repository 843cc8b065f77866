import { Annotations, Fn, type Stack } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { LedgerVerifierKey } from './ledger-verifier-key';
import { LedgerSigningKey } from './sequencer';

/**
 * The ledger's keys, one a generation (docs/ledger.md#when-the-key-must-change). A key change adds
 * a key beside the ones before (`-c ledgerKeys=2`): every earlier key is retained (evidence it
 * signed keeps verifying), the newest is the one the writers sign with, and each generation's
 * verifier key is learned from its KMS key at deploy time. Generation 1 keeps the construct ids it
 * always had (`LedgerSigningKey`, `VerifierKey`), so adding a generation never replaces a key.
 */
export interface LedgerKeyGeneration {
  generation: number;
  /** The log this key signs: `ledgerOrigin` for the first, `<ledgerOrigin>/<generation>` after. */
  origin: string;
  key: LedgerSigningKey;
  verifierKey: LedgerVerifierKey;
}

/** The origin of a generation's log: the first log's origin, then `/2`, `/3`, ... below it (each fixed for its log's life). */
export function ledgerOriginOf(firstOrigin: string, generation: number): string {
  return generation === 1 || !firstOrigin ? firstOrigin : `${firstOrigin}/${generation}`;
}

/** `-c ledgerKeys=N`: how many keys the ledger has had (1 until the first key change). */
export function asLedgerKeyCount(value: unknown): number {
  if (value === undefined || value === null || value === '') return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 20) throw new Error(`context 'ledgerKeys' is the number of ledger keys (generations), 1 to 20: not ${JSON.stringify(value)}`);
  return n;
}

/**
 * `-c ledgerRetiredLogs=<origin>=<final tree size>[,...]`: the logs a key change ended, with the final
 * tree size `npm run rotate` printed. Each must be the log of an earlier generation (never the
 * current one); the read functions refuse a retired log's evidence beyond that size
 * (LEDGER_RETIRED_LOGS), and naming the previous log closes its handover (no one may sign with it).
 */
export function asRetiredLogs(value: unknown, firstOrigin: string, keyCount: number): string {
  const text = typeof value === 'string' ? value.trim() : value === undefined || value === null ? '' : String(value);
  const earlier = Array.from({ length: keyCount - 1 }, (_, i) => ledgerOriginOf(firstOrigin, i + 1));
  for (const entry of text.split(',').map((e) => e.trim()).filter(Boolean)) {
    const at = entry.lastIndexOf('=');
    const size = Number(entry.slice(at + 1));
    if (at < 1 || !Number.isSafeInteger(size) || size < 1) throw new Error(`context 'ledgerRetiredLogs': "${entry}" is not <origin>=<final tree size>`);
    if (!earlier.includes(entry.slice(0, at))) {
      throw new Error(`context 'ledgerRetiredLogs': ${entry.slice(0, at)} is not the log of an earlier ledger key (${earlier.join(', ') || 'there is none: ledgerKeys is 1'})`);
    }
  }
  return text.split(',').map((e) => e.trim()).filter(Boolean).join(',');
}

export interface LedgerKeysSettings {
  ledgerOrigin: string;
  ledgerKeys: number;
  ledgerVerifierKeys: string;
  ledgerRetiredLogs: string;
  logRetentionDays: RetentionDays;
}

/** The ledger's keys and their verifier keys, created in the stack's own scope (their logical ids are the keys' identity). */
export class LedgerKeys {
  readonly generations: LedgerKeyGeneration[];

  constructor(
    stack: Stack,
    private readonly settings: LedgerKeysSettings,
    projectRoot: string,
  ) {
    this.generations = Array.from({ length: settings.ledgerKeys }, (_, i) => {
      const generation = i + 1;
      const suffix = generation === 1 ? '' : String(generation);
      const origin = ledgerOriginOf(settings.ledgerOrigin, generation);
      const key = new LedgerSigningKey(stack, `LedgerSigningKey${suffix}`, generation);
      const verifierKey = new LedgerVerifierKey(stack, `VerifierKey${suffix}`, {
        projectRoot,
        signingKey: key,
        origin,
        pinnedVerifierKeys: settings.ledgerVerifierKeys,
        logRetention: settings.logRetentionDays,
      });
      return { generation, origin, key, verifierKey };
    });
    if (settings.ledgerKeys > 1 && !settings.ledgerOrigin) Annotations.of(stack).addError('ledgerKeys > 1 needs the first log\'s origin (ledgerOrigin or the domains it derives from)');
  }

  /** The key the writers sign with: the newest generation's. */
  get current(): LedgerKeyGeneration {
    return this.generations[this.generations.length - 1];
  }

  /** The generation before the current one while its handover is open (not yet named in ledgerRetiredLogs); else undefined. */
  get handingOver(): LedgerKeyGeneration | undefined {
    const previous = this.generations.at(-2);
    const retired = this.settings.ledgerRetiredLogs.split(',').map((e) => e.slice(0, e.lastIndexOf('=')));
    return previous && !retired.includes(previous.origin) ? previous : undefined;
  }

  /**
   * What the read functions trust: the pinned list when given (each key's custom resource checked
   * that it names that key), else every generation's verifier key learned at deploy time, newest first.
   */
  get trustedVerifierKeys(): string {
    if (this.settings.ledgerVerifierKeys.trim()) return this.generations[0].verifierKey.trustedVerifierKeys;
    if (this.generations.length === 1) return this.current.verifierKey.trustedVerifierKeys;
    return Fn.join(',', [...this.generations].reverse().map((g) => g.verifierKey.verifierKey));
  }

  /**
   * Who may sign with which key: the writers (sequencer, loader role) with the current key only; the
   * loader role also with the previous key while its handover is open (npm run rotate signs the old
   * log's final checkpoint with it); every other key signs for no one (its key policy refuses kms:Sign).
   */
  restrictSigning(writers: { sequencer: IRole; loader: IRole }): void {
    const open = this.handingOver;
    for (const { key, generation } of this.generations) {
      if (key === this.current.key) key.restrictSigningTo([writers.sequencer, writers.loader]);
      else if (generation === open?.generation) {
        key.grantSigning(writers.loader);
        key.restrictSigningTo([writers.loader]);
      } else key.refuseSigning();
    }
  }
}
