import type { z } from 'zod';
import type { TelemetryReadiness } from '../../functions/contract/schemas/catalogues';

/**
 * Telemetry export readiness. Logs are what the functions emit today (the Powertools Logger's
 * JSON lines with the correlation id, functions/logging/logger.ts, docs/deploy.md#logs), and the
 * sequencer's one metric (Powertools Metrics, docs/deploy.md#operating); traces are ready to
 * export but not configured. Where any export goes, with which headers or keys, is never
 * published: that is configuration of the deployment, not contract.
 */
export function buildTelemetryReadiness(): z.input<typeof TelemetryReadiness> {
  return {
    schemaVersion: 'svc.telemetry-readiness.v1',
    statement: 'Readiness of telemetry export only. Export endpoints, their headers and any credentials are configuration and are never published.',
    hidden: { endpoints: true, headers: true, secrets: true },
    signals: [
      {
        signal: 'LOGS',
        readiness: 'ACTIVE',
        format: 'One JSON object per line, written by the Powertools for AWS Lambda (TypeScript) Logger',
        fields: ['timestamp', 'level', 'message', 'service', 'cold_start', 'function_name', 'function_request_id', 'xray_trace_id', 'correlation_id', 'endpoint', 'status'],
        correlation: 'The caller\'s x-correlation-id when well formed, else the request id; present in every log line and problem body.',
      },
      {
        signal: 'METRICS',
        readiness: 'ACTIVE',
        format: 'CloudWatch embedded metric format, written by Powertools for AWS Lambda (TypeScript) Metrics',
        fields: ['OldestPendingEventAge (seconds, after every sequencer run but one the stream woke that asked the pending index nothing: every tick, and at least every 90 s)'],
        correlation: 'Dimensions are the service and the table, never references; requests, errors and latency are the API Gateway and Lambda metrics CloudWatch keeps itself.',
      },
      {
        signal: 'TRACES',
        readiness: 'READY',
        format: 'OpenTelemetry spans',
        fields: ['span per operation', 'store read'],
        correlation: 'The correlation id is recorded as a span attribute.',
      },
    ],
    exports: [
      { exporter: 'CLOUDWATCH_LOGS', readiness: 'ACTIVE', configuration: 'HIDDEN' },
      { exporter: 'OTLP', readiness: 'READY', configuration: 'HIDDEN' },
    ],
    redaction: [
      'Request and response bodies are not logged; the value of a body, a signature, a credential header, a cookie or a secret is redacted wherever it would appear in a line.',
      'Personal and payment data never reach a log line, because they never reach a response.',
      'Stack traces are logged only for unexpected errors and never returned to a caller.',
    ],
  };
}
