import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { demoDocument, DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { LOCAL_TABLE, localClient, type LocalService } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';
import { launchChromium } from '../support/browser';
import { getJson, startTestService } from '../support/local';

/**
 * @public-trust/verify as a stranger uses it: packed once (`npm pack`), installed from the tarball
 * into a new project outside the repository, with its one dependency from the npm registry, and
 * used there as ESM, as CommonJS, from TypeScript and from a web page bundled with esbuild for a
 * real Chromium. Each verifies every demo reference of a running service with the key the service
 * publishes, pinned by the caller; the altered proof, the MODIFIED object and a record tampered
 * with after reading fail with the check that says why. The CLI it installs verifies an answer and
 * audits the log. publint and arethetypeswrong report nothing, and the browser bundle of
 * verifyEvidence stays within 8 KB gzipped.
 */
const ROOT = path.resolve(__dirname, '../..');
const CONSUMER = path.join(__dirname, '../support/verify-consumer');
const PACKAGE = '@public-trust/verify';
const ANCHOR = new Date('2026-11-21T10:00:00Z');
/** The issue's budget for the browser bundle of verifyEvidence, gzipped. */
const VERIFY_EVIDENCE_GZIP_BUDGET = 8 * 1024;
const run = promisify(execFile);
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}
const exec = (file: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> =>
  // No colours: tools colour their output when they see CI=true, as the CI run sets.
  run(file, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, maxBuffer: 1 << 26 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

let service: LocalService;
let work: string;
let project: string;
let tarball: string;
let input: {
  baseUrl: string;
  key: string;
  strangerKey: string;
  references: Record<'objects' | 'commercialProofs' | 'credentials' | 'statusLists', string[]>;
  olderCheckpoint: string;
  newerCheckpoint: string;
};

async function packAndInstall(): Promise<void> {
  const built = await exec('npm', ['run', 'build', '--workspace', PACKAGE], ROOT);
  if (built.code !== 0) throw new Error(`the package does not build:\n${built.stdout}\n${built.stderr}`);
  const packed = await exec('npm', ['pack', '--workspace', PACKAGE, '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  tarball = path.join(work, JSON.parse(packed.stdout)[0].filename);
  // A new project of a relying party: nothing but the tarball, its dependency from the registry, and its own code.
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'relying-party', private: true, type: 'module' }, null, 2));
  for (const file of await readdir(CONSUMER)) await copyFile(path.join(CONSUMER, file), path.join(project, file));
  const installed = await exec('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], project);
  if (installed.code !== 0) throw new Error(`npm install of the tarball failed: ${installed.stderr}`);
}

async function startService(): Promise<void> {
  service = await startTestService(ANCHOR);
  const older = (await getJson(`${service.url}/v1/ledger`)).body;
  // A second load grows the log, so that there are two checkpoints to prove consistency between.
  const client = localClient(service.storeEndpoint);
  try {
    const { signer } = await devLedgerSigner();
    await loadDocument(demoDocument(new Date(ANCHOR.getTime() + 86_400_000)), { client, table: LOCAL_TABLE, signer, tiles: directoryTileStore(service.tilesDir) });
  } finally {
    client.destroy();
  }
  const ledger = (await getJson(`${service.url}/v1/ledger`)).body;
  const examples = (await getJson(`${service.url}/developers/sandbox/examples.json`)).body;
  input = {
    baseUrl: service.url,
    // The key the service publishes, taken once and pinned by the relying party from then on.
    key: ledger.verifierKeys[0].verifierKey,
    strangerKey: signerFromKey(generateSignerKey(ledger.origin)).verifierKey,
    references: examples.references,
    olderCheckpoint: older.latestCheckpoint.note,
    newerCheckpoint: ledger.latestCheckpoint.note,
  };
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'verify-package-'));
  project = path.join(work, 'relying-party');
  await run('mkdir', [project]);
  await Promise.all([packAndInstall(), startService()]);
}, 300_000);
afterAll(async () => {
  await service?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

type Summary = { ok: boolean; kind: string; reference: string; failed: string[]; checks: string[]; origin: string; leafIndex: number; treeSize: number; serviceSaid: boolean | null };
type ScenarioResult = {
  entry: string;
  references: Record<string, Summary>;
  byUrl: Summary;
  tampered: Summary;
  untouched: Summary;
  tamperedList: Summary;
  strangerKeyResult: Summary;
  older: { ok: boolean; treeSize: number };
  newer: { ok: boolean; treeSize: number; origin: string };
  consistency: { ok: boolean; from: number; to: number };
  reversed: { ok: boolean };
  forgedCheckpoint: { ok: boolean; checks: { name: string; ok: boolean }[] };
  problem: { name: string; status: number } | null;
};

const FIVE_CHECKS = ['evidence-format', 'record-version', 'canonical-hash', 'inclusion-proof', 'checkpoint-signature'];

/** What every way of loading the package must find. */
function expectScenario(result: ScenarioResult): void {
  const all = Object.values(input.references).flat();
  expect(Object.keys(result.references).sort()).toEqual([...all].sort());
  expect(all.length).toBeGreaterThanOrEqual(20);
  const failing = Object.fromEntries(Object.entries(result.references).filter(([, r]) => !r.ok).map(([reference, r]) => [reference, r.failed[0]]));
  // The two demo records whose evidence does not cover what is shown, each caught by the check that names why.
  expect(failing).toEqual({ [DEMO_OBJECTS.modified]: 'record-version', [DEMO_PROOFS.tampered]: 'canonical-hash' });
  for (const [reference, r] of Object.entries(result.references)) {
    // Credential results and status lists also show fields beside the logged record: they must be the record's.
    expect([reference, r.checks]).toEqual([reference, r.kind === 'credential' || r.kind === 'status-list' ? [...FIVE_CHECKS, 'shown-fields'] : FIVE_CHECKS]);
    expect(r.reference).toBe(reference);
    expect(r.origin).toBe(result.newer.origin);
    expect(r.leafIndex).toBeLessThan(r.treeSize);
    expect(r.treeSize).toBeLessThanOrEqual(result.newer.treeSize);
    // The service's own verdict, where its answer states one, agrees with the offline check.
    expect([reference, r.serviceSaid]).toEqual([reference, r.kind === 'status-list' ? null : r.ok]);
  }
  expect(new Set(Object.values(result.references).map((r) => r.kind))).toEqual(new Set(['object', 'commercial-proof', 'credential', 'status-list']));
  expect(result.byUrl).toMatchObject({ ok: true, kind: 'commercial-proof', reference: input.references.commercialProofs[0] });
  expect(result.untouched.ok).toBe(true);
  expect(result.tampered).toMatchObject({ ok: false, failed: ['canonical-hash', 'inclusion-proof'] });
  expect(result.tamperedList).toMatchObject({ ok: false, kind: 'status-list', failed: ['shown-fields'] });
  expect(result.strangerKeyResult).toMatchObject({ ok: false, failed: ['checkpoint-signature'] });
  expect([result.older.ok, result.newer.ok]).toEqual([true, true]);
  expect(result.newer.treeSize).toBeGreaterThan(result.older.treeSize);
  expect(result.consistency).toMatchObject({ ok: true, from: result.older.treeSize, to: result.newer.treeSize });
  expect(result.reversed.ok).toBe(false);
  expect(result.forgedCheckpoint.ok).toBe(false);
  expect(result.forgedCheckpoint.checks[0]).toMatchObject({ name: 'checkpoint-signature', ok: false });
  expect(result.problem).toMatchObject({ name: 'FetchError', status: 404 });
}

describe('the package as published', () => {
  test('the tarball holds the build, the CLI, the README and the licences, and nothing of the sources', async () => {
    const listed = await exec('tar', ['-tzf', tarball], work);
    const files = listed.stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'THIRD-PARTY-NOTICES.md', 'dist/index.mjs', 'dist/index.js', 'dist/index.d.mts', 'dist/index.d.ts', 'dist/monitor.mjs', 'dist/monitor.js', 'dist/cli.js']));
    expect(files.filter((f) => f.startsWith('src/') || f.endsWith('.test.ts') || f.includes('tsup'))).toEqual([]);
    const manifest = JSON.parse(await readFile(path.join(project, 'node_modules', PACKAGE, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: PACKAGE, version: '1.0.0', license: 'Apache-2.0', bin: { 'public-trust': 'dist/cli.js' } });
    expect(Object.keys(manifest.dependencies)).toEqual(['canonicalize']);
  });

  test('publint and arethetypeswrong report nothing', async () => {
    const [publint, attw] = await Promise.all([
      exec(bin('publint'), ['run', tarball, '--strict'], work),
      exec(bin('attw'), [tarball, '--no-definitely-typed', '--no-color', '--no-emoji', '--format', 'ascii'], work),
    ]);
    expect([publint.code, publint.stdout.trim().split('\n').pop()]).toEqual([0, 'All good!']);
    expect(publint.stdout).not.toMatch(/Suggestions|Warnings|Errors/);
    expect(attw.stdout).toContain('No problems found');
    expect(attw.code).toBe(0);
  });

  test('the project installed the tarball and its one dependency, and resolves nothing from this repository', async () => {
    const installed = (await readdir(path.join(project, 'node_modules'))).filter((name) => !name.startsWith('.')).sort();
    expect(installed).toEqual(['@public-trust', 'canonicalize']);
    const resolved = await exec(process.execPath, ['-e', "console.log(JSON.stringify([require.resolve('@public-trust/verify'), require.resolve('canonicalize'), (() => { try { return require.resolve('zod'); } catch { return null; } })()]))"], project);
    const [entry, dependency, repositoryOnly] = JSON.parse(resolved.stdout) as [string, string, string | null];
    expect(entry.startsWith(path.join(project, 'node_modules'))).toBe(true);
    expect(dependency.startsWith(path.join(project, 'node_modules'))).toBe(true);
    expect(repositoryOnly).toBeNull();
    expect(project.startsWith(ROOT)).toBe(false);
  });
});

describe('a relying party', () => {
  test.each([
    ['imports it as ESM', 'consumer.mjs', 'index.mjs'],
    ['requires it as CommonJS', 'consumer.cjs', 'index.js'],
  ])('%s in Node.js (%s) and verifies every demo reference with the pinned key', async (_how, consumer, entry) => {
    const ran = await exec(process.execPath, [consumer], project, { SCENARIO_INPUT: JSON.stringify(input) });
    expect(ran.stderr).toBe('');
    const result = JSON.parse(ran.stdout) as ScenarioResult;
    expect(result.entry.endsWith(`/node_modules/@public-trust/verify/dist/${entry}`)).toBe(true);
    expectScenario(result);
  });

  test('type-checks its TypeScript with the declarations (strict, DOM only), and the contract refuses calls it does not allow', async () => {
    // The compiler is a tool from this repository; what it reads (the package, its declarations) comes from the project.
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const [consumer, misuse] = await Promise.all([exec(process.execPath, [tsc, '-p', 'tsconfig.json'], project), exec(process.execPath, [tsc, '-p', 'tsconfig.misuse.json'], project)]);
    expect(consumer.stdout + consumer.stderr).toBe('');
    expect(consumer.code).toBe(0);
    expect(misuse.code).not.toBe(0);
    const lines = [...misuse.stdout.matchAll(/^misuse\.ts\((\d+),\d+\): error/gm)].map((m) => Number(m[1]));
    expect([...new Set(lines)]).toEqual([6, 7, 8, 9]);
  });

  test('bundles it with esbuild for a web page that verifies every demo reference in Chromium; verifyEvidence alone stays within 8 KB gzipped', async () => {
    const bundled = await build({ absWorkingDir: project, entryPoints: ['browser.mjs'], bundle: true, write: false, format: 'iife', platform: 'browser', target: 'es2022', minify: true, logLevel: 'silent' });
    const small = await build({ absWorkingDir: project, entryPoints: ['size.mjs'], bundle: true, write: false, format: 'esm', platform: 'browser', target: 'es2022', minify: true, logLevel: 'silent', metafile: true });
    const gzipped = gzipSync(small.outputFiles[0].contents, { level: 9 }).length;
    expect(Object.keys(small.metafile.inputs).every((file) => file.startsWith('node_modules/') || file === 'size.mjs')).toBe(true);
    expect(gzipped).toBeLessThanOrEqual(VERIFY_EVIDENCE_GZIP_BUDGET);

    // The page is served from its own origin; it reads the service across origins (CORS), as a shop's page would.
    const script = bundled.outputFiles[0].text;
    const page: Server = createServer((req, res) => {
      if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>relying party</title><script src="/app.js"></script>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const tab = await browser.newPage();
      const errors: string[] = [];
      tab.on('pageerror', (error) => errors.push(error.message));
      await tab.goto(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`);
      const result = (await tab.evaluate((scenarioInput) => (globalThis as unknown as { runScenario(i: unknown): Promise<unknown> }).runScenario(scenarioInput), input)) as Omit<ScenarioResult, 'entry'>;
      expect(errors).toEqual([]);
      expectScenario({ entry: 'browser', ...result });
    } finally {
      await browser?.close();
      await new Promise((resolve) => page.close(resolve));
    }
  });

  test('runs the CLI it installed: verify (0 verified, 1 not, naming the check) and monitor (the whole log)', async () => {
    const cli = path.join(project, 'node_modules/.bin/public-trust');
    const verified = await exec(cli, ['verify', `${service.url}/v1/objects/${DEMO_OBJECTS.current}`, '--key', input.key], project, { LEDGER_VERIFIER_KEYS: '' });
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/PASS {2}checkpoint-signature/);
    expect(verified.stdout).toContain('VERIFIED: this is the content the ledger logged.');
    const altered = await exec(cli, ['verify', `${service.url}/v1/commercial-proofs/${DEMO_PROOFS.tampered}`, '--key', input.key], project, { LEDGER_VERIFIER_KEYS: '' });
    expect(altered.code).toBe(1);
    expect(altered.stdout).toMatch(/FAIL {2}canonical-hash/);
    const credential = await exec(cli, ['verify', `${service.url}/v1/credentials/verify/${input.references.credentials[0]}`, '--key', input.key], project, { LEDGER_VERIFIER_KEYS: '' });
    expect([credential.code, credential.stdout.split('\n')[0]]).toEqual([0, `credential ${input.references.credentials[0]}`]);
    const monitor = await exec(cli, ['monitor', service.url, '--state', path.join(work, 'monitor.json'), '--key', input.key], project);
    expect(monitor.stdout).toContain(`verified ${(await getJson(`${service.url}/v1/ledger`)).body.latestCheckpoint.treeSize} entries of`);
    expect(monitor.code).toBe(0);
    const usage = await exec(cli, [], project);
    expect([usage.code, usage.stderr]).toEqual([2, expect.stringMatching(/^usage: public-trust verify/)]);
  });
});
