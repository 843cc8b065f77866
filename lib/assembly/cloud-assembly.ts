import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';

/**
 * A cloud assembly as `cdk synth -o DIR` writes it: manifest.json naming one CloudFormation stack,
 * its template, and the asset manifest that says where each asset (a function's bundle, a bucket
 * deployment's files) lies in DIR. Nothing here knows this service: it reads what CDK wrote.
 */

export interface CfnResource {
  Type: string;
  Properties?: Record<string, any>;
  DependsOn?: string | string[];
  Condition?: string;
  DeletionPolicy?: string;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
  Parameters?: Record<string, { Type: string; Default?: unknown }>;
  Conditions?: Record<string, unknown>;
  Mappings?: Record<string, Record<string, Record<string, unknown>>>;
}

export interface AssetSource {
  /** Absolute path of the staged asset: a directory (packaging zip: CDK zips it on publish) or a file. */
  path: string;
  packaging: 'zip' | 'file';
}

export interface CloudAssembly {
  dir: string;
  stackName: string;
  templateFile: string;
  template: CfnTemplate;
  /** Staged assets by hash (the S3 key CloudFormation names is `<hash>.zip` or `<hash>.<ext>`). */
  assets: Map<string, AssetSource>;
}

function readJson(file: string): any {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Reads the assembly in `dir`; it must hold exactly one stack (or `stackName` picks one). */
export function readCloudAssembly(dir: string, stackName?: string): CloudAssembly {
  const root = path.resolve(dir);
  const manifestFile = path.join(root, 'manifest.json');
  if (!existsSync(manifestFile)) throw new Error(`${root} is not a cloud assembly (no manifest.json): run npx cdk synth -o ${dir}`);
  const artifacts = Object.entries((readJson(manifestFile).artifacts ?? {}) as Record<string, { type: string; properties?: Record<string, any>; dependencies?: string[] }>);
  const stacks = artifacts.filter(([, a]) => a.type === 'aws:cloudformation:stack');
  const chosen = stackName ? stacks.filter(([name]) => name === stackName) : stacks;
  if (chosen.length !== 1) {
    throw new Error(`${root} holds ${stacks.length === 0 ? 'no stack' : `stacks ${stacks.map(([n]) => n).join(', ')}`}; name one${stackName ? ` (${stackName} is not there)` : ''}`);
  }
  const [name, stack] = chosen[0];
  const templateFile = path.join(root, stack.properties!.templateFile);
  const assets = new Map<string, AssetSource>();
  for (const dependency of stack.dependencies ?? []) {
    const artifact = artifacts.find(([n]) => n === dependency)?.[1];
    if (artifact?.type !== 'cdk:asset-manifest') continue;
    const files = (readJson(path.join(root, artifact.properties!.file)).files ?? {}) as Record<string, { source: { path: string; packaging?: string } }>;
    for (const [hash, entry] of Object.entries(files)) {
      assets.set(hash, { path: path.join(root, entry.source.path), packaging: entry.source.packaging === 'zip' ? 'zip' : 'file' });
    }
  }
  return { dir: root, stackName: name, templateFile, template: readJson(templateFile) as CfnTemplate, assets };
}

/** The hash of an asset from the S3 key CloudFormation names for it (`<hash>.zip`). */
function assetHashOfKey(key: string): string {
  return key.replace(/\.[a-z]+$/i, '');
}

const extracted = new Map<string, string>();

/**
 * The files of an asset as a directory: a staged directory as it is, a zip file unpacked once into
 * a temporary folder (what Lambda and the bucket deployment do with the uploaded zip).
 */
export function assetDirectory(assembly: CloudAssembly, key: string): string {
  const hash = assetHashOfKey(key);
  const asset = assembly.assets.get(hash);
  if (!asset) throw new Error(`the template names asset ${key}, which the assembly does not hold`);
  if (statSync(asset.path).isDirectory()) return asset.path;
  if (!asset.path.endsWith('.zip')) throw new Error(`asset ${key} is a single file (${path.basename(asset.path)}), not a zip or a directory`);
  let dir = extracted.get(asset.path);
  if (!dir) {
    dir = mkdtempSync(path.join(os.tmpdir(), `asset-${hash.slice(0, 12)}-`));
    for (const [name, bytes] of Object.entries(unzipSync(readFileSync(asset.path)))) {
      if (name.endsWith('/')) continue;
      const target = path.join(dir, name);
      if (!target.startsWith(dir + path.sep)) throw new Error(`asset ${key} holds a path outside itself: ${name}`);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, bytes);
    }
    extracted.set(asset.path, dir);
  }
  return dir;
}

/** Removes the folders zipped assets were unpacked into. */
export function removeUnpackedAssets(): void {
  for (const dir of extracted.values()) rmSync(dir, { recursive: true, force: true });
  extracted.clear();
}

/** Resources of one type, by logical id. */
export function resourcesOfType(template: CfnTemplate, type: string): Array<[string, CfnResource]> {
  return Object.entries(template.Resources).filter(([, r]) => r.Type === type);
}
