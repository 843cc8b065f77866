import { operations } from '../../../functions/contract/operations';
import { lambdaOperations } from '../../../lib/stack/operation-functions';
import { logicalIdOf, synthesize, type CfnResourceJson } from '../support';

/**
 * The stack synthesized once with the default settings, for every suite in this folder: the suites
 * run in one Jest test file (test/infra/stack.test.ts), so this module, aws-cdk-lib and the
 * synthesis are loaded once. Other contexts are synthesized once each, when a suite first asks.
 */

const synths = new Map<string, ReturnType<typeof synthesize>>();

/** The stack synthesized with this context (bundling skipped), shared by every suite that asks for the same. */
export function synthesized(context: Record<string, unknown> = {}): ReturnType<typeof synthesize> {
  const key = JSON.stringify(context);
  if (!synths.has(key)) synths.set(key, synthesize(context));
  return synths.get(key)!;
}

export const { stack, json } = synthesized();
export const resources = json.Resources;
export const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

export const lambdaOps = lambdaOperations(operations);
export const receivers = lambdaOps.filter((op) => op.integration.access === 'ingress-write');

export const tableId = logicalIdOf(stack, stack.records.table);
export const bucketId = logicalIdOf(stack, stack.catalogue.bucket);
export const ledgerKeyId = logicalIdOf(stack, stack.ledgerKey.key);
export const verifierKeyId = logicalIdOf(stack, stack.verifierKey.resource);
export const loaderRoleId = logicalIdOf(stack, stack.loader.role);
export const sequencerId = logicalIdOf(stack, stack.sequencer.function);
export const sequencerRoleId = logicalIdOf(stack, stack.sequencer.role);
export const deadLettersId = logicalIdOf(stack, stack.sequencer.deadLetterQueue);
export const partWritersId = logicalIdOf(stack, stack.sequencer.parts!.function);
export const partWritersRoleId = logicalIdOf(stack, stack.sequencer.parts!.role);
export const ingressSecretId = logicalIdOf(stack, stack.ingress.secret);
export const apiIdOf = (s: typeof stack) => logicalIdOf(s, s.publicApi.api);

/** The conditions that confine a role's table access to pending-event items, or to record partitions. */
export const PENDING_ONLY = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['P#*'] } };
export const RECORDS_ONLY = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['R#*'] } };
/** The part writers': records, events and the journal chunks their parts store themselves (J#), never the ledger's items. */
export const RECORDS_EVENTS_AND_PART_CHUNKS_ONLY = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['R#*', 'P#*', 'J#*'] } };
export const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];

/** The function of an operation: its logical id, resource and role's logical id. */
export function functionOf(operationId: string): { id: string; resource: CfnResourceJson; roleId: string } {
  const fn = stack.functions.byOperationId.get(operationId);
  if (!fn) throw new Error(`no function for ${operationId}`);
  const id = logicalIdOf(stack, fn);
  const resource = resources[id];
  return { id, resource, roleId: resource.Properties.Role['Fn::GetAtt'][0] };
}
