import type { z } from 'zod';
import type { TelemetryReadiness } from '../../functions/contract/schemas/catalogues';

/**
 * Telemetry export readiness. Logs are what the functions emit today (structured JSON in the
 * Powertools Logger format with the correlation id, see functions/logging/logger.ts); metrics and traces are ready to
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
        format: 'One JSON object per line, in the AWS Lambda Powertools Logger format',
        fields: ['timestamp', 'level', 'message', 'service', 'correlationId', 'endpoint', 'status', 'function_request_id'],
        correlation: 'The caller\'s x-correlation-id when well formed, else the request id; present in every log line and problem body.',
      },
      {
        signal: 'METRICS',
        readiness: 'READY',
        format: 'CloudWatch embedded metric format',
        fields: ['requests by endpoint and status', 'latency'],
        correlation: 'Dimensions are endpoint templates, never references.',
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
      'Request and response bodies are not logged.',
      'Personal and payment data never reach a log line, because they never reach a response.',
      'Stack traces are logged only for unexpected errors and never returned to a caller.',
    ],
  };
}
