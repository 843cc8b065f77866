import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { DEMO_CREDENTIALS, DEMO_STATUS_LISTS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { AppendOnlyLog } from '../../functions/ledger-writer/log';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { withDerivedRecords } from '../loader/derive';
import { attachLedgerEvidence } from '../loader/evidence';
import { validateRecords } from '../loader/load';
import type { RecordToStore } from '../../functions/store/ports/records';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { ADAPTERS, type AdapterEntry } from '../../functions/contract/adapters';
import { EVENT_CONTRACTS, type EventContract } from '../../functions/contract/events';
import type { Operation } from '../../functions/contract/operation';
import { operations } from '../../functions/contract/operations';
import { SANDBOX_BOUNDARIES, SANDBOX_EXAMPLES, type SandboxExample } from '../../functions/domain/sandbox/examples';
import { SANDBOX_PROVIDERS } from '../../functions/domain/sandbox/providers';
import type { DemoReferences } from './demo-values';

const ROOT = path.resolve(__dirname, '../..');

export interface SandboxProviderSource {
  providerId: string;
  description: string;
  boundary?: string;
  requestSchema: z.ZodType;
  exampleRequest: unknown;
  run(request: unknown): unknown;
}

/** The commit a build describes; the instant is the commit's own, never the build machine's clock. */
export interface ReleaseIdentity {
  commit: string | null;
  committedAt: string | null;
}

export interface PackageManifest {
  name: string;
  version: string;
  description?: string;
  license?: string;
  dependencies?: Record<string, string>;
}

export interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
}

export interface LockedPackage {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  license?: string;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Everything every developer document is generated from. Builders are pure functions of this. */
export interface PublishSources {
  operations: readonly Operation[];
  events: readonly EventContract[];
  adapters: readonly AdapterEntry[];
  providers: readonly SandboxProviderSource[];
  sandboxExamples: readonly SandboxExample[];
  sandboxBoundaries: readonly string[];
  demo: DemoReferences;
  packageManifest: PackageManifest;
  lockfile: Lockfile;
  release: ReleaseIdentity;
  /**
   * The records being loaded where these documents are served (the demo records of the local
   * service and the assembly's demo, or an operator's file): the ingress examples are derived from
   * them (lib/publish/ingress-examples.ts). None: the examples are templates.
   */
  ingressRecords?: readonly RecordToStore[];
  /** With ingressRecords, the earliest instant of the ingress examples (the local service's start); without, the templates' instant (default the fixed example instant). */
  ingressExamplesAt?: string;
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
  } catch {
    return null;
  }
}

/**
 * The commit from RELEASE_COMMIT (CI) or git; the instant from SOURCE_DATE_EPOCH (the
 * reproducible-builds convention) or the commit's committer date. Both are properties of the
 * commit, so the same commit always yields the same documents.
 */
export function releaseIdentity(env: NodeJS.ProcessEnv = process.env): ReleaseIdentity {
  const commit = env.RELEASE_COMMIT || git(['rev-parse', 'HEAD']);
  const epoch = env.SOURCE_DATE_EPOCH;
  const committedAt = epoch
    ? new Date(Number(epoch) * 1000).toISOString()
    : commit && /^[0-9a-f]{40}$/.test(commit)
      ? git(['show', '-s', '--format=%cI', commit])
      : null;
  return { commit, committedAt: committedAt ? new Date(committedAt).toISOString().replace('.000Z', 'Z') : null };
}

let demoTreeSize: number | undefined;

/**
 * The size of the log a demo load makes (every distinct anchored demo record version, whatever the
 * instant the demo is generated around), found by logging the demo in memory with a throwaway key.
 */
export function demoLedgerTreeSize(): number {
  if (demoTreeSize === undefined) {
    const log = new AppendOnlyLog(signerFromKey(generateSignerKey('demo.invalid/size')));
    attachLedgerEvidence(withDerivedRecords(validateRecords(demoDocument(new Date(0)))), log);
    demoTreeSize = log.size;
  }
  return demoTreeSize;
}

export function canonicalSources(): PublishSources {
  const readJson = <T>(file: string): T => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as T;
  return {
    operations,
    events: EVENT_CONTRACTS,
    adapters: ADAPTERS,
    providers: SANDBOX_PROVIDERS as readonly SandboxProviderSource[],
    sandboxExamples: SANDBOX_EXAMPLES,
    sandboxBoundaries: SANDBOX_BOUNDARIES,
    demo: {
      objects: Object.values(DEMO_OBJECTS),
      commercialProofs: Object.values(DEMO_PROOFS),
      credentials: Object.values(DEMO_CREDENTIALS),
      statusLists: Object.values(DEMO_STATUS_LISTS),
      ledgerTreeSize: demoLedgerTreeSize(),
    },
    packageManifest: readJson<PackageManifest>('package.json'),
    lockfile: readJson<Lockfile>('package-lock.json'),
    release: releaseIdentity(),
  };
}
