import type { z } from 'zod';
import { contractRegistry } from '../../functions/contract/registry';
import type { ContractCatalogue } from '../../functions/contract/schemas/catalogues';
import { CONTRACT_VERSION } from '../../functions/contract/service';
import { operationComponents, referencedComponents } from '../../functions/domain/assets';
import { PROBLEMS, problemType, type ProblemCode } from '../../functions/http/problem';
import { X_SVC } from '../contract/x-svc';
import type { PublishSources } from './sources';
import { declaredVersion } from './versions';

/** The contract documents contracts.json lists, with what each describes. */
export const CONTRACT_DOCUMENTS = [
  { contractId: 'openapi', format: 'OpenAPI 3.1.0', path: '/developers/openapi.json', describes: 'Every HTTP operation, parameter, schema and problem response.' },
  { contractId: 'asyncapi', format: 'AsyncAPI 3.0.0', path: '/developers/asyncapi.json', describes: 'Lifecycle and webhook events as CloudEvents.' },
  { contractId: 'event-example', format: 'CloudEvents 1.0', path: '/developers/events/example.json', describes: 'One event, structured mode.' },
  { contractId: 'problem-example', format: 'RFC 9457 problem details', path: '/developers/problem-details/example.json', describes: 'The ErrorResponse every failure uses.' },
] as const;

/**
 * The canonical contract catalogue. `digests` are the SHA-256 of the documents as published, so
 * a client can pin a contract and notice any change.
 */
export function buildContractCatalogue(sources: PublishSources, digests: Record<string, string>): z.input<typeof ContractCatalogue> {
  const usedBy = new Map<string, string[]>();
  for (const op of sources.operations) for (const id of operationComponents(op)) (usedBy.get(id) ?? usedBy.set(id, []).get(id)!).push(op.operationId);
  for (const event of sources.events) for (const id of referencedComponents(event.payload)) (usedBy.get(id) ?? usedBy.set(id, []).get(id)!).push(event.type);
  return {
    schemaVersion: 'svc.developer-contracts.v1',
    contractVersion: CONTRACT_VERSION,
    contracts: CONTRACT_DOCUMENTS.map((c) => {
      const digest = digests[c.path];
      if (!digest) throw new Error(`contracts.json needs the digest of ${c.path}; build it first`);
      return { ...c, sha256: digest };
    }),
    schemas: [...contractRegistry._idmap.entries()].map(([name, schema]) => ({
      name,
      schemaVersion: declaredVersion(schema as z.ZodType),
      contract: `/developers/openapi.json#/components/schemas/${name}`,
      usedBy: usedBy.get(name) ?? [],
    })),
    events: sources.events.map((e) => ({ type: e.type, name: e.name, contract: `/developers/asyncapi.json#/components/messages/${e.name}` })),
    problemCodes: (Object.keys(PROBLEMS) as ProblemCode[]).map((code) => ({ code, status: PROBLEMS[code].status, title: PROBLEMS[code].title, type: problemType(code) })),
    extension: X_SVC,
  };
}
