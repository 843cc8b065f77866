import type { LiveState, Operation } from '../../contract/operation';
import type { EndpointRef } from '../../contract/schemas/surfaces';

/** Most available first: what a "best state" of several endpoints means. */
export const LIVE_STATE_RANK: Record<LiveState, number> = { LIVE: 0, READY: 1, GATED_BY_PERSISTENCE: 2, SHADOW: 3 };

/** The part of an operation the surfaces read (so builders accept any contract table). */
export type OperationRow = Pick<Operation, 'operationId' | 'method' | 'path' | 'liveState' | 'tag' | 'summary'>;

export function endpointRef(baseUrl: string, op: OperationRow): EndpointRef {
  return { operationId: op.operationId, method: op.method, path: op.path, href: `${baseUrl}${op.path}`, liveState: op.liveState };
}

export function findOperation(operations: readonly OperationRow[], method: string, path: string): OperationRow | undefined {
  return operations.find((op) => op.method === method && op.path === path);
}

export function bestLiveState(states: readonly LiveState[]): LiveState | undefined {
  return [...states].sort((a, b) => LIVE_STATE_RANK[a] - LIVE_STATE_RANK[b])[0];
}

/** Counts per value, every known value present (zero included) so a reader sees the whole vocabulary. */
export function countBy<K extends string>(vocabulary: readonly K[], values: readonly string[]): Record<K, number> {
  const out = Object.fromEntries(vocabulary.map((k) => [k, 0])) as Record<K, number>;
  for (const v of values) if (v in out) out[v as K] += 1;
  return out;
}

/** Absolute URL of a parameterless GET route, only when the contract table publishes it (never a dead link). */
export function linkIfPublished(operations: readonly OperationRow[], baseUrl: string, path: string): string | undefined {
  return findOperation(operations, 'GET', path) ? `${baseUrl}${path}` : undefined;
}

/** Drops undefined values (links to routes the table does not publish). */
export function definedLinks(links: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(links)) if (v !== undefined) out[k] = v;
  return out;
}
