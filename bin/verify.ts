/**
 * npm run verify -- <URL or file> [--key VERIFIER_KEY]... [--ledger URL]
 *
 * Re-checks the ledger evidence of an object or commercial-proof response offline: the record's
 * RFC 8785 canonical hash, its RFC 9162 inclusion proof and the checkpoint's Ed25519 signature,
 * printing each check. The input is a response URL (fetched once) or a saved response; a file
 * holding { "record": …, "evidence": … } works too. Trusted keys come from --key (repeatable),
 * else LEDGER_VERIFIER_KEYS, else the service's /v1/ledger (said so on the output: pin the key
 * with --key to verify without trusting the service at all).
 * Exit status: 0 verified, 1 not verified, 2 could not run.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { trustedLedgerKeys } from '../functions/domain/evidence';
import { checkWitnessed, parseWitnessKey } from '../functions/domain/ledger/node-crypto';
import { verifyEvidence } from '../functions/domain/ledger/node-crypto';
import type { LedgerEvidence } from '../functions/domain/record';

interface Subject {
  kind: string;
  record: unknown;
  evidence: LedgerEvidence | null;
  /** What the service itself concluded, when the response says. */
  serviceSaid: boolean | null;
}

class UsageError extends Error {}

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

/** The evidence as stored, without the service's own verdict that rides along in proof responses. */
function evidenceOnly(ledger: unknown): LedgerEvidence | null {
  if (ledger === null || ledger === undefined || typeof ledger !== 'object') return null;
  const { integrity: _verdict, ...evidence } = ledger as Record<string, unknown>;
  return evidence as LedgerEvidence;
}

function subjectOf(body: any): Subject {
  if (body?.schemaVersion === 'svc.commercial-proof-evidence.v1') {
    return { kind: 'commercial proof', record: body.proof, evidence: evidenceOnly(body.verification?.ledger), serviceSaid: body.verification?.proofVerified ?? null };
  }
  if (body?.schemaVersion === 'svc.living-object-resolution.v1') {
    return { kind: 'living object', record: body.object, evidence: evidenceOnly(body.current?.ledger), serviceSaid: body.current?.evidenceIntegrityConfirmed ?? null };
  }
  if (body && typeof body === 'object' && 'record' in body && 'evidence' in body) {
    return { kind: 'record', record: body.record, evidence: evidenceOnly(body.evidence), serviceSaid: null };
  }
  throw new UsageError('the input is not an object or commercial-proof response, nor a { record, evidence } document');
}

async function keysFor(input: string, given: string[], ledgerUrl: string | undefined): Promise<{ keys: string[]; source: string }> {
  if (given.length > 0) return { keys: given, source: '--key' };
  const configured = trustedLedgerKeys();
  if (configured.length > 0) return { keys: configured, source: 'LEDGER_VERIFIER_KEYS' };
  const url = ledgerUrl ?? (isUrl(input) && input.includes('/v1/') ? `${input.slice(0, input.indexOf('/v1/'))}/v1/ledger` : undefined);
  if (!url) throw new UsageError('no trusted key: pass --key <verifier key> (published at /v1/ledger) or --ledger <URL of /v1/ledger>');
  const ledger = (await fetchJson(url)) as { verifierKeys?: { verifierKey: string }[] };
  const keys = (ledger.verifierKeys ?? []).map((k) => k.verifierKey);
  if (keys.length === 0) throw new UsageError(`${url} publishes no verifier key`);
  return { keys, source: `${url} (published by the service itself; pin it with --key to verify independently)` };
}

/**
 * The log's copy of the checkpoint of this size (where witnesses' cosignatures are added), when the
 * service says where its tile log is: <monitoringPrefix>checkpoints/<size>. None offline.
 */
async function historyCopies(input: string, ledgerUrl: string | undefined, treeSize: number): Promise<string[]> {
  const url = ledgerUrl ?? (isUrl(input) && input.includes('/v1/') ? `${input.slice(0, input.indexOf('/v1/'))}/v1/ledger` : undefined);
  if (!url) return [];
  const prefix = ((await fetchJson(url)) as { tiles?: { monitoringPrefix?: string } }).tiles?.monitoringPrefix;
  if (!prefix) return [];
  const res = await fetch(`${prefix}checkpoints/${treeSize}`);
  return res.ok ? [await res.text()] : [];
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      key: { type: 'string', multiple: true, default: [] },
      ledger: { type: 'string' },
      witness: { type: 'string', multiple: true, default: [] },
      'witnesses-required': { type: 'string' },
    },
  });
  if (positionals.length !== 1) {
    console.error('usage: npm run verify -- <URL or file> [--key VERIFIER_KEY]... [--ledger URL] [--witness WITNESS_KEY]... [--witnesses-required K]');
    return 2;
  }
  const input = positionals[0];
  try {
    const body = isUrl(input) ? await fetchJson(input) : JSON.parse(await readFile(input, 'utf8'));
    const subject = subjectOf(body);
    const { keys, source } = await keysFor(input, values.key ?? [], values.ledger);
    const reference = (subject.record as { reference?: string } | null)?.reference ?? '(no reference)';
    console.log(`${subject.kind} ${reference}`);
    console.log(`trusted keys from ${source}:`);
    for (const key of keys) console.log(`  ${key}`);
    if (!subject.evidence) {
      console.log('FAIL  the response carries no ledger evidence: integrity cannot be confirmed');
      return 1;
    }
    const verified = verifyEvidence(subject.record, subject.evidence, keys);
    const outcome = { ...verified, checks: [...verified.checks] as { name: string; ok: boolean; detail: string }[] };
    const witnesses = values.witness!.map(parseWitnessKey);
    if (witnesses.length > 0 || values['witnesses-required'] !== undefined) {
      const required = values['witnesses-required'] === undefined ? witnesses.length : Number(values['witnesses-required']);
      const { checkpoint, treeSize } = subject.evidence as unknown as { checkpoint: string; treeSize: number };
      const check = checkWitnessed(checkpoint, await historyCopies(input, values.ledger, treeSize), { witnesses, required });
      outcome.checks.push({ name: 'witness-cosignatures', ok: check.ok, detail: check.detail });
      outcome.ok = outcome.ok && check.ok;
    }
    for (const check of outcome.checks) console.log(`${check.ok ? 'PASS' : 'FAIL'}  ${check.name.padEnd(20)} ${check.detail}`);
    console.log(outcome.ok ? 'VERIFIED: this is the content the ledger logged.' : 'NOT VERIFIED: do not rely on this content.');
    if (subject.serviceSaid !== null && subject.serviceSaid !== outcome.ok) {
      console.log(`note: the service said ${subject.serviceSaid ? 'confirmed' : 'not confirmed'}; this offline check disagrees.`);
    }
    console.log('Integrity only: says nothing about authority or the current lifecycle (offline results never claim live freshness).');
    return outcome.ok ? 0 : 1;
  } catch (error) {
    console.error(`cannot verify: ${(error as Error).message}`);
    return 2;
  }
}

main().then((code) => process.exit(code));
