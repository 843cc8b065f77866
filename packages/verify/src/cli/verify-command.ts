import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { isLogEvidence } from '../checks/evidence-format';
import { keyList } from '../checks/note';
import { evidenceSubject, type SubjectKind } from '../responses';
import { parseWitnessKey, verifyEvidence } from '../verify';

/**
 * `verify <URL or file> [--key VERIFIER_KEY]... [--ledger URL] [--witness WITNESS_KEY]... [--witnesses-required K]`
 *
 * Re-checks the ledger evidence of an answer of the service offline (an object, a commercial
 * proof, a credential verification result, a status list, or a `{ record, evidence }` document),
 * printing each check. The input is a URL (fetched once) or a saved answer. Trusted keys come from
 * --key (repeatable), else LEDGER_VERIFIER_KEYS (comma-separated), else the service's own
 * /v1/ledger, which the output says: pin the key with --key to verify without trusting the service.
 * Exit status: 0 verified, 1 not verified, 2 could not run.
 */
export const VERIFY_USAGE = '<URL or file> [--key VERIFIER_KEY]... [--ledger URL] [--witness WITNESS_KEY]... [--witnesses-required K] [--retired ORIGIN=FINAL_TREE_SIZE]...';

class UsageError extends Error {}

const KIND_LABELS: Record<SubjectKind, string> = {
  object: 'living object',
  'commercial-proof': 'commercial proof',
  credential: 'credential',
  'status-list': 'status list',
  record: 'record',
};

const isUrl = (text: string): boolean => /^https?:\/\//i.test(text);

async function fetchJson(url: string): Promise<unknown> {
  const res = await fetch(url, { headers: { accept: 'application/json' } });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UsageError(`${url} answered ${res.status} with something other than JSON`);
  }
  if (!res.ok) {
    const detail = (body as { detail?: string }).detail ?? '';
    throw new UsageError(`${url} answered ${res.status}${detail ? `: ${detail}` : ''}`);
  }
  return body;
}

/** The service's /v1/ledger for an answer's URL (or as given with --ledger). */
const ledgerUrlFor = (input: string, ledgerUrl: string | undefined): string | undefined =>
  ledgerUrl ?? (isUrl(input) && input.includes('/v1/') ? `${input.slice(0, input.indexOf('/v1/'))}/v1/ledger` : undefined);

interface LedgerDocument {
  verifierKeys?: { verifierKey: string }[];
  logs?: { origin: string; role: string; validUpToTreeSize: number | null }[];
  tiles?: { monitoringPrefix?: string };
}

/** The service's /v1/ledger at `url`, fetched at most once per command run (keys and history copies both read it). */
type LedgerSource = (url: string) => Promise<LedgerDocument>;

function ledgerSource(): LedgerSource {
  const fetched = new Map<string, Promise<LedgerDocument>>();
  return (url) => {
    let document = fetched.get(url);
    if (!document) {
      document = fetchJson(url) as Promise<LedgerDocument>;
      fetched.set(url, document);
    }
    return document;
  };
}

async function keysFor(input: string, given: string[], ledgerUrl: string | undefined, ledgerAt: LedgerSource): Promise<{ keys: string[]; source: string }> {
  if (given.length > 0) return { keys: given, source: '--key' };
  // The service's own setting, comma-separated: a deployment's operators verify with what they configured.
  const configured = keyList(process.env.LEDGER_VERIFIER_KEYS);
  if (configured.length > 0) return { keys: configured, source: 'LEDGER_VERIFIER_KEYS' };
  const url = ledgerUrlFor(input, ledgerUrl);
  if (!url) throw new UsageError('no trusted key: pass --key <verifier key> (published at /v1/ledger) or --ledger <URL of /v1/ledger>');
  const ledger = await ledgerAt(url);
  const keys = (ledger.verifierKeys ?? []).map((k) => k.verifierKey);
  if (keys.length === 0) throw new UsageError(`${url} publishes no verifier key`);
  return { keys, source: `${url} (published by the service itself; pin it with --key to verify independently)` };
}

/**
 * Logs a key change ended, with their final size: `--retired ORIGIN=SIZE` as pinned, else what the
 * service's /v1/ledger lists (when it is reachable). None offline.
 */
async function retiredLogsFor(input: string, given: string[], ledgerUrl: string | undefined, ledgerAt: LedgerSource): Promise<{ origin: string; validUpToTreeSize: number }[]> {
  if (given.length > 0) {
    return given.map((text) => {
      const at = text.lastIndexOf('=');
      const size = Number(text.slice(at + 1));
      if (at <= 0 || !Number.isSafeInteger(size) || size < 1) throw new UsageError(`--retired takes ORIGIN=FINAL_TREE_SIZE, not ${text}`);
      return { origin: text.slice(0, at), validUpToTreeSize: size };
    });
  }
  const url = ledgerUrlFor(input, ledgerUrl);
  if (!url) return [];
  const logs = (await ledgerAt(url).catch(() => ({}) as LedgerDocument)).logs ?? [];
  return logs.flatMap((log) => (log.role === 'retired' && log.validUpToTreeSize !== null ? [{ origin: log.origin, validUpToTreeSize: log.validUpToTreeSize }] : []));
}

/**
 * The log's copy of the checkpoint of this size (where witnesses' cosignatures are added), when the
 * service says where its tile log is: <monitoringPrefix>checkpoints/<size>. None offline.
 */
async function historyCopies(input: string, ledgerUrl: string | undefined, treeSize: number | null, ledgerAt: LedgerSource): Promise<string[]> {
  const url = ledgerUrlFor(input, ledgerUrl);
  if (!url || treeSize === null) return [];
  const prefix = (await ledgerAt(url)).tiles?.monitoringPrefix;
  if (!prefix) return [];
  const res = await fetch(`${prefix}checkpoints/${treeSize}`);
  return res.ok ? [await res.text()] : [];
}

/** Runs the command; returns the exit status. `program` names the command in the usage line. */
export async function verifyCommand(args: string[], program = 'public-trust verify'): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        key: { type: 'string', multiple: true, default: [] },
        ledger: { type: 'string' },
        witness: { type: 'string', multiple: true, default: [] },
        'witnesses-required': { type: 'string' },
        retired: { type: 'string', multiple: true, default: [] },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\nusage: ${program} ${VERIFY_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    console.error(`usage: ${program} ${VERIFY_USAGE}`);
    return 2;
  }
  const input = positionals[0];
  try {
    const answer = isUrl(input) ? await fetchJson(input) : JSON.parse(await readFile(input, 'utf8'));
    const subject = evidenceSubject(answer);
    const ledgerAt = ledgerSource();
    const { keys, source } = await keysFor(input, values.key, values.ledger, ledgerAt);
    console.log(`${KIND_LABELS[subject.kind]} ${subject.reference ?? '(no reference)'}`);
    console.log(`trusted keys from ${source}:`);
    for (const key of keys) console.log(`  ${key}`);
    const witnesses = values.witness;
    for (const witness of witnesses) await parseWitnessKey(witness);
    const quorum = values['witnesses-required'] === undefined ? undefined : Number(values['witnesses-required']);
    const withWitnesses = witnesses.length > 0 || quorum !== undefined;
    const treeSize = isLogEvidence(subject.evidence) ? subject.evidence.treeSize : null;
    const copies = withWitnesses ? await historyCopies(input, values.ledger, treeSize, ledgerAt) : [];
    const retiredLogs = await retiredLogsFor(input, values.retired, values.ledger, ledgerAt);
    const outcome = await verifyEvidence(answer, { trustedKeys: keys, witnesses, quorum, checkpointCopies: copies, retiredLogs });
    for (const check of outcome.checks) console.log(`${check.ok ? 'PASS' : 'FAIL'}  ${check.name.padEnd(20)} ${check.detail}`);
    console.log(outcome.ok ? 'VERIFIED: this is the content the ledger logged.' : 'NOT VERIFIED: do not rely on this content.');
    if (outcome.serviceSaid !== null && outcome.serviceSaid !== outcome.ok) {
      console.log(`note: the service said ${outcome.serviceSaid ? 'confirmed' : 'not confirmed'}; this offline check disagrees.`);
    }
    console.log('Integrity only: says nothing about authority or the current lifecycle (offline results never claim live freshness).');
    return outcome.ok ? 0 : 1;
  } catch (error) {
    console.error(`cannot verify: ${(error as Error).message}`);
    return 2;
  }
}
