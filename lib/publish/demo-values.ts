import { tilePath, TILE_WIDTH, TILES_FOLDER } from '#verify/node/tlog-tiles';
import { WEBHOOK_SOURCE_IDS } from '../../functions/contract/ingress';
import type { Operation } from '../../functions/contract/operation';

/** Demo references that exist in the demo data, by the record family they belong to. */
export interface DemoReferences {
  objects: string[];
  commercialProofs: string[];
  credentials: string[];
  /** Status list identifiers (credential status lists). */
  statusLists: string[];
  /** The size of the ledger a demo load makes (its tile log holds the tiles and checkpoint of this size). */
  ledgerTreeSize: number;
}

/**
 * Candidate demo values for one path parameter of an operation, the most fitting first: a
 * reference under /v1/commercial-proofs is a proof, a claimId is a credential, a providerId
 * is a synthetic provider; anything else may be any record.
 */
export function demoValuesFor(op: Pick<Operation, 'path'>, param: string, demo: DemoReferences, providerIds: readonly string[]): string[] {
  if (param === 'treeSize') return [String(demo.ledgerTreeSize)];
  // A successor log exists only after a key change (docs/ledger.md#when-the-key-must-change), which no demo makes: nothing to try.
  if (param === 'logPath') return [];
  if (param === 'tilePath') {
    // The rightmost level-0 tile and entry bundle of the demo log, paths below tile/.
    const width = demo.ledgerTreeSize % TILE_WIDTH || TILE_WIDTH;
    const index = Math.floor((demo.ledgerTreeSize - 1) / TILE_WIDTH);
    return [0, 'entries' as const].map((level) => tilePath({ level, index, width }).slice(TILES_FOLDER.length));
  }
  if (/provider/i.test(param)) return [...providerIds];
  if (/source/i.test(param)) return [...WEBHOOK_SOURCE_IDS];
  if (/list/i.test(param)) return [...demo.statusLists];
  if (/claim|credential/i.test(param)) return [...demo.credentials];
  const all = [...demo.objects, ...demo.commercialProofs, ...demo.credentials];
  if (op.path.startsWith('/v1/commercial-proofs')) return [...demo.commercialProofs, ...all.filter((r) => !demo.commercialProofs.includes(r))];
  if (op.path.includes('credential')) return [...demo.credentials, ...all.filter((r) => !demo.credentials.includes(r))];
  return all;
}

export function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}

/** A path template with its parameters filled in (percent-encoded; a multi-segment value keeps its slashes). */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (values[name] === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return values[name].split('/').map(encodeURIComponent).join('/');
  });
}

/**
 * Demo values of required query parameters: tree sizes of the ledger the demo log always reaches
 * (it logs every demo record version). A required parameter without one fails the build.
 */
const DEMO_QUERY: Record<string, string> = { from: '1', to: '8' };

/** The query string (with its ?) carrying demo values of the operation's required query parameters. */
export function demoQuery(op: Pick<Operation, 'operationId' | 'requiredQueryParams'>): string {
  const names = op.requiredQueryParams ?? [];
  for (const name of names) if (DEMO_QUERY[name] === undefined) throw new Error(`no demo value for the required query parameter ${name} of ${op.operationId}`);
  return names.length === 0 ? '' : `?${names.map((name) => `${name}=${DEMO_QUERY[name]}`).join('&')}`;
}

/** The operation's path with the first demo value of each parameter, or null when a parameter has none. */
export function demoPath(op: Pick<Operation, 'path' | 'operationId' | 'requiredQueryParams'>, demo: DemoReferences, providerIds: readonly string[]): string | null {
  const values: Record<string, string> = {};
  for (const name of pathParamsOf(op.path)) {
    const [first] = demoValuesFor(op, name, demo, providerIds);
    if (first === undefined) return null;
    values[name] = first;
  }
  return fillPath(op.path, values) + demoQuery(op);
}
