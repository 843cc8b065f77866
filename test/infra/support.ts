import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { operations } from '../../functions/contract/operations';
import { createApp } from '../../lib/stack/app';

/** Unit tests skip bundling (no esbuild run); the real synth test bundles. */
export const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] as string[] };

/** The contract table's published documents. */
export const documentKeys = operations.flatMap((op) => (op.integration.kind === 'document' ? [op.integration.key] : []));

/**
 * A build output as `npm run build` lays it out: every document the contract serves, plus an HTML
 * page, so the deployment of each media type is exercised whatever the build holds today.
 */
export function fixtureSite(
  extra: Record<string, string> = { 'verify/index.html': '<!doctype html><title>verify</title>', 'developers/extra.json': '{}' },
): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'site-'));
  const files: Record<string, string> = { ...Object.fromEntries(documentKeys.map((key) => [key, '{"schemaVersion":"fixture.v1"}'])), ...extra };
  for (const [key, body] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, key)), { recursive: true });
    writeFileSync(path.join(dir, key), body);
  }
  return dir;
}

/** A test stack's ledger origin when its context gives none (without one the synth stops: lib/stack/trust-service-stack.ts). */
export const TEST_LEDGER_ORIGIN = 'verify.example.org/ledger';
const ORIGIN_CONTEXT = ['ledgerOrigin', 'verificationOrigin', 'verificationDomain', 'publicBaseUrl'];

export function synthesize(context: Record<string, unknown> = {}, siteDir = fixtureSite()) {
  const origin = ORIGIN_CONTEXT.some((key) => key in context) ? {} : { ledgerOrigin: TEST_LEDGER_ORIGIN };
  const { app, stack } = createApp({ context: { ...SKIP_BUNDLING, ...origin, ...context } }, { siteDir });
  const template = Template.fromStack(stack);
  return { app, stack, template, json: template.toJSON() as { Resources: Record<string, CfnResourceJson>; Outputs: Record<string, { Value: unknown }> } };
}

export interface CfnResourceJson {
  Type: string;
  Properties: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  DependsOn?: string[];
}

export function logicalIdOf(stack: Stack, construct: IConstruct): string {
  const resource = (construct.node.defaultChild ?? construct) as IConstruct;
  return stack.resolve(stack.getLogicalId(resource as never)) as string;
}

export interface Grant {
  effect: string;
  action: string;
  resource: unknown;
  /** The statement's Condition block, when it has one. */
  condition?: unknown;
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** Every (effect, action, resource) a role is given, from its inline and attached policies. */
export function grantsOf(resources: Record<string, CfnResourceJson>, roleLogicalId: string): Grant[] {
  const documents: any[] = [];
  const role = resources[roleLogicalId];
  for (const policy of role.Properties.Policies ?? []) documents.push(policy.PolicyDocument);
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    if (asArray(resource.Properties.Roles).some((r: any) => r?.Ref === roleLogicalId)) documents.push(resource.Properties.PolicyDocument);
  }
  return documents.flatMap((doc) =>
    asArray<any>(doc.Statement).flatMap((s) =>
      asArray<string>(s.Action).flatMap((action) => asArray(s.Resource).map((resource) => ({ effect: s.Effect, action, resource, ...(s.Condition ? { condition: s.Condition } : {}) }))),
    ),
  );
}

/** `{ "Fn::GetAtt": [id, "Arn"] }` and friends, as the logical ids they point at. */
export function referencedIds(value: unknown): string[] {
  const json = JSON.stringify(value ?? null);
  return [...json.matchAll(/"(?:Ref|Fn::GetAtt)":(?:\["|")([A-Za-z0-9]+)"/g)].map((m) => m[1]);
}
