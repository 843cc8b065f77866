import { createHash } from 'node:crypto';
import { Enums, Models, Serialize, Spec, SPDX } from '@cyclonedx/cyclonedx-library';
import type { z } from 'zod';
import type { ReleaseEvidence } from '../../functions/contract/schemas/catalogues';
import type { Lockfile, LockedPackage, PublishSources } from './sources';

type Json = Record<string, any>;

export const BUILD_TYPE = 'urn:public-trust-verification-service:build:npm-run-build:v1';
export const DEFAULT_BUILDER_ID = 'urn:public-trust-verification-service:builder:npm-run-build';

export interface RuntimePackage {
  name: string;
  version: string;
  purl: string;
  lockPath: string;
  locked: LockedPackage;
  dependsOn: Set<string>;
}

/** pkg:npm purl (scope '@' percent-encoded, as the purl spec requires). */
export function npmPurl(name: string, version: string): string {
  return `pkg:npm/${name.startsWith('@') ? `%40${name.slice(1)}` : name}@${version}`;
}

/** Node's resolution over the lockfile: look in the requiring package's node_modules, then each parent's, then the root's. */
function resolveLocked(lock: Lockfile, fromPath: string, name: string): string | null {
  let base = fromPath;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return null;
    const at = base.lastIndexOf('/node_modules/');
    base = at < 0 ? '' : base.slice(0, at);
  }
}

/**
 * The runtime dependency closure: package.json `dependencies`, then every package they need
 * (dependencies, installed optional and peer dependencies), resolved through package-lock.json
 * as Node resolves them. Dev dependencies never enter unless a runtime package needs them.
 */
export function runtimePackages(sources: Pick<PublishSources, 'packageManifest' | 'lockfile'>): Map<string, RuntimePackage> {
  const lock = sources.lockfile;
  const byPurl = new Map<string, RuntimePackage>();
  const visitedPaths = new Set<string>();
  const visit = (lockPath: string): string => {
    const locked = lock.packages[lockPath];
    const name = locked.name ?? lockPath.slice(lockPath.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const purl = npmPurl(name, locked.version ?? '0.0.0');
    let pkg = byPurl.get(purl);
    if (!pkg) {
      pkg = { name, version: locked.version ?? '0.0.0', purl, lockPath, locked, dependsOn: new Set() };
      byPurl.set(purl, pkg);
    }
    if (visitedPaths.has(lockPath)) return purl;
    visitedPaths.add(lockPath);
    const wanted = [
      ...Object.keys(locked.dependencies ?? {}),
      ...Object.keys(locked.optionalDependencies ?? {}),
      ...Object.keys(locked.peerDependencies ?? {}),
    ];
    for (const dep of new Set(wanted)) {
      const resolved = resolveLocked(lock, lockPath, dep);
      if (resolved) pkg.dependsOn.add(visit(resolved));
    }
    return purl;
  };
  for (const dep of Object.keys(sources.packageManifest.dependencies ?? {})) {
    const resolved = resolveLocked(lock, '', dep);
    if (!resolved) throw new Error(`runtime dependency ${dep} is not in package-lock.json (run npm install)`);
    visit(resolved);
  }
  return byPurl;
}

const HASH_ALGORITHMS: Record<string, Enums.HashAlgorithm> = {
  sha512: Enums.HashAlgorithm['SHA-512'],
  sha384: Enums.HashAlgorithm['SHA-384'],
  sha256: Enums.HashAlgorithm['SHA-256'],
  sha1: Enums.HashAlgorithm['SHA-1'],
};

function licenseOf(text: string): Models.License {
  if (SPDX.isSupportedSpdxId(text)) return new Models.SpdxLicense(text);
  const expression: string = text;
  if (/\s(OR|AND|WITH)\s/.test(expression)) return new Models.LicenseExpression(expression.replace(/^\((.*)\)$/, '$1'));
  return new Models.NamedLicense(expression);
}

function component(pkg: RuntimePackage): Models.Component {
  const c = new Models.Component(Enums.ComponentType.Library, pkg.name, { version: pkg.version, purl: pkg.purl, bomRef: pkg.purl });
  for (const sri of (pkg.locked.integrity ?? '').split(/\s+/).filter(Boolean)) {
    const [alg, b64] = [sri.slice(0, sri.indexOf('-')), sri.slice(sri.indexOf('-') + 1)];
    if (HASH_ALGORITHMS[alg]) c.hashes.set(HASH_ALGORITHMS[alg], Buffer.from(b64, 'base64').toString('hex'));
  }
  if (pkg.locked.license) c.licenses.add(licenseOf(pkg.locked.license));
  if (pkg.locked.resolved) c.externalReferences.add(new Models.ExternalReference(pkg.locked.resolved, Enums.ExternalReferenceType.Distribution));
  return c;
}

/** A name-based UUID (RFC 9562 version 8 layout) from a digest, so the serial number is a property of the inputs. */
function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex').slice(0, 32).split('');
  h[12] = '8';
  h[16] = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** CycloneDX 1.6 JSON BOM of the runtime dependencies, sorted, with no clock in it. */
export function buildSbom(sources: PublishSources): Json {
  const packages = runtimePackages(sources);
  const manifest = sources.packageManifest;
  const lockDigest = sha256(JSON.stringify(sources.lockfile));
  const bom = new Models.Bom({ version: 1, serialNumber: `urn:uuid:${uuidFrom(`${sources.release.commit ?? 'uncommitted'}\n${lockDigest}`)}` });
  const root = new Models.Component(Enums.ComponentType.Application, manifest.name, {
    version: manifest.version,
    bomRef: npmPurl(manifest.name, manifest.version),
    purl: npmPurl(manifest.name, manifest.version),
    description: manifest.description,
  });
  if (manifest.license) root.licenses.add(licenseOf(manifest.license));
  if (sources.release.commit) root.properties.add(new Models.Property('svc:commit', sources.release.commit));
  bom.metadata.component = root;
  if (sources.release.committedAt) bom.metadata.timestamp = new Date(sources.release.committedAt);
  const toolLock = sources.lockfile.packages['node_modules/@cyclonedx/cyclonedx-library'];
  if (toolLock?.version) {
    bom.metadata.tools.components.add(new Models.Component(Enums.ComponentType.Library, '@cyclonedx/cyclonedx-library', { version: toolLock.version, bomRef: npmPurl('@cyclonedx/cyclonedx-library', toolLock.version) }));
  }
  const components = new Map<string, Models.Component>();
  for (const pkg of packages.values()) {
    const c = component(pkg);
    components.set(pkg.purl, c);
    bom.components.add(c);
  }
  for (const pkg of packages.values()) {
    for (const dep of pkg.dependsOn) components.get(pkg.purl)!.dependencies.add(components.get(dep)!.bomRef);
  }
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    const pkg = [...packages.values()].find((p) => p.lockPath === `node_modules/${dep}`)!;
    root.dependencies.add(components.get(pkg.purl)!.bomRef);
  }
  const serializer = new Serialize.JsonSerializer(new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6));
  return JSON.parse(serializer.serialize(bom, { sortLists: true })) as Json;
}

/**
 * An in-toto Statement with an SLSA v1 provenance predicate: the published documents (subjects
 * with their SHA-256) were built by `npm run build` from this commit and this lockfile. No
 * invocation id or start time: those would change between two builds of the same commit.
 */
export function buildProvenance(sources: PublishSources, subjects: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Json {
  const resolvedDependencies: Json[] = [{ name: 'package-lock.json', digest: { sha256: sha256(JSON.stringify(sources.lockfile)) } }];
  if (sources.release.commit) resolvedDependencies.unshift({ name: 'source', digest: { gitCommit: sources.release.commit } });
  return {
    _type: 'https://in-toto.io/Statement/v1',
    subject: Object.entries(subjects)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, digest]) => ({ name, digest: { sha256: digest } })),
    predicateType: 'https://slsa.dev/provenance/v1',
    predicate: {
      buildDefinition: {
        buildType: BUILD_TYPE,
        externalParameters: { command: 'npm run build', source: sources.release.commit ? { commit: sources.release.commit } : { commit: null } },
        resolvedDependencies,
      },
      runDetails: { builder: { id: env.RELEASE_BUILDER_ID || DEFAULT_BUILDER_ID } },
    },
  };
}

export function buildReleaseEvidence(sources: PublishSources, subjects: Record<string, string>): z.input<typeof ReleaseEvidence> {
  return {
    schemaVersion: 'svc.release-evidence.v1',
    deterministic: true,
    commit: sources.release.commit,
    sbom: buildSbom(sources) as z.input<typeof ReleaseEvidence>['sbom'],
    provenance: buildProvenance(sources, subjects) as z.input<typeof ReleaseEvidence>['provenance'],
  };
}
