/**
 * What the cost bench prices, read from the stack as `cdk synth` would make it (the app of
 * lib/stack/app.ts at its default settings, bundling skipped): each function's memory,
 * architecture and log settings (Lambda's log format and levels, its log group's class), the API
 * stage's access log (its format and log group), the alarms and the ledger key. So the price
 * follows the configuration: change a memory size or a log class in the stack and the next run
 * prices it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { operations } from '../../../functions/contract/operations';
import { createApp } from '../../../lib/stack/app';

export type LogClass = 'STANDARD' | 'INFREQUENT_ACCESS';

export interface FunctionFacts {
  memoryMb: number;
  architecture: 'arm64' | 'x86_64';
  /** Lambda's log format (Text or JSON) and, with JSON, its application and system log levels. */
  logFormat: 'Text' | 'JSON';
  applicationLogLevel: string | null;
  systemLogLevel: string | null;
  logClass: LogClass;
}

export interface StackFacts {
  /** By operation id; the sequencer under SEQUENCER. */
  functions: Map<string, FunctionFacts>;
  accessLog: { format: string; logClass: LogClass } | null;
  alarms: number;
  kmsKeys: number;
  secrets: number;
  /** A CloudFront distribution in front of the API. */
  edge: boolean;
}

export const SEQUENCER = 'sequencer';

interface Resource {
  Type: string;
  Properties?: Record<string, any>;
}

/** The stack's template at its default settings, or with the context given (edge=false). */
export function synthesizedTemplate(context: Record<string, string> = {}): Record<string, Resource> {
  const siteDir = mkdtempSync(path.join(os.tmpdir(), 'bench-site-'));
  try {
    // The build output the stack publishes: every document the contract serves.
    for (const op of operations) {
      if (op.integration.kind !== 'document') continue;
      const file = path.join(siteDir, op.integration.key);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, '{}');
    }
    // A log origin, without which the synth stops (its value changes no resource the cost counts).
    const { app, stack } = createApp({ context: { 'aws:cdk:bundling-stacks': [], ledgerOrigin: 'cost.example.org/ledger', ...context } }, { siteDir });
    const assembly = app.synth();
    return (assembly.getStackArtifact(stack.artifactId).template as { Resources: Record<string, Resource> }).Resources;
  } finally {
    rmSync(siteDir, { recursive: true, force: true });
  }
}

const refOf = (value: unknown): string | undefined => (value && typeof value === 'object' && 'Ref' in value ? String((value as { Ref: string }).Ref) : undefined);

export function stackFacts(resources: Record<string, Resource> = synthesizedTemplate()): StackFacts {
  const logClassOf = (logGroup: unknown): LogClass => {
    const id = refOf(logGroup) ?? (Array.isArray((logGroup as any)?.['Fn::GetAtt']) ? (logGroup as any)['Fn::GetAtt'][0] : undefined);
    return (resources[id ?? '']?.Properties?.LogGroupClass as LogClass | undefined) ?? 'STANDARD';
  };
  const functions = new Map<string, FunctionFacts>();
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const p = r.Properties ?? {};
    const description = String(p.Description ?? '');
    // Operation functions say "(operationId)" last; the sequencer says it integrates events.
    const operationId = /\((\w+)\)$/.exec(description)?.[1] ?? (/integrates pending/i.test(description) ? SEQUENCER : undefined);
    if (!operationId) continue;
    const logging = p.LoggingConfig ?? {};
    functions.set(operationId, {
      memoryMb: Number(p.MemorySize ?? 128),
      architecture: (p.Architectures?.[0] ?? 'x86_64') as FunctionFacts['architecture'],
      logFormat: logging.LogFormat === 'JSON' ? 'JSON' : 'Text',
      applicationLogLevel: logging.ApplicationLogLevel ?? null,
      systemLogLevel: logging.SystemLogLevel ?? null,
      logClass: logClassOf(logging.LogGroup),
    });
  }
  const stage = Object.values(resources).find((r) => r.Type === 'AWS::ApiGateway::Stage');
  const access = stage?.Properties?.AccessLogSetting;
  const accessGroup = access?.DestinationArn?.['Fn::GetAtt']?.[0] as string | undefined;
  const count = (type: string) => Object.values(resources).filter((r) => r.Type === type).length;
  return {
    functions,
    accessLog: access ? { format: String(access.Format), logClass: (resources[accessGroup ?? '']?.Properties?.LogGroupClass as LogClass | undefined) ?? 'STANDARD' } : null,
    alarms: count('AWS::CloudWatch::Alarm'),
    kmsKeys: count('AWS::KMS::Key'),
    secrets: count('AWS::SecretsManager::Secret'),
    edge: count('AWS::CloudFront::Distribution') > 0,
  };
}
