import type { z } from 'zod';
import { CHANNELS } from '../../functions/contract/channels';
import { cloudEventEnvelope } from '../../functions/contract/events';
import type { AdapterManifest, NetworkConformance } from '../../functions/contract/schemas/catalogues';
import { STANDARDS } from '../../functions/contract/standards';
import { exampleEvent, examplePayloads } from './events';
import type { PublishSources } from './sources';

const standardSummary = (key: string) => {
  const s = STANDARDS.find((entry) => entry.key === key);
  return s ? [{ key: s.key, standard: s.standard, maturity: s.maturity }] : [];
};
const readinessOf = (channel: string) => CHANNELS.find((c) => c.key === channel)?.readiness ?? 'READY';

export function buildAdapterManifest(sources: PublishSources): z.input<typeof AdapterManifest> {
  return {
    schemaVersion: 'svc.adapter-manifest.v2',
    manifestVersion: 2,
    activatesAdapters: false,
    statement: 'This manifest describes adapters; it activates none. Each stays NOT_ACTIVATED until the external decision named in its gate is made.',
    adapters: sources.adapters.map((a) => ({
      adapterId: a.adapterId,
      version: a.version,
      title: a.title,
      direction: a.direction,
      channel: a.channel,
      channelReadiness: readinessOf(a.channel),
      standards: a.standards.flatMap(standardSummary),
      events: [...a.events],
      activation: 'NOT_ACTIVATED',
      gate: a.gate,
    })),
  };
}

/**
 * Conformance evidence per adapter: checks made against the published contracts at build time.
 * Conforming to the contracts is evidence for integration work, never production acceptance.
 */
export function buildNetworkConformance(sources: PublishSources): z.input<typeof NetworkConformance> {
  const examples = examplePayloads(sources);
  return {
    schemaVersion: 'svc.network-conformance.v1',
    productionAcceptance: false,
    statement:
      'Evidence that each adapter declaration matches the published channel, standards and event contracts. It is not production acceptance: no adapter is activated and no network has accepted one.',
    adapters: sources.adapters.map((adapter) => {
      const channel = CHANNELS.find((c) => c.key === adapter.channel);
      const unknownStandards = adapter.standards.filter((k) => !STANDARDS.some((s) => s.key === k));
      const eventChecks = adapter.events.map((type) => {
        const contract = sources.events.find((e) => e.type === type);
        let passed = false;
        let detail = `No event contract ${type} is published.`;
        if (contract) {
          const parsed = cloudEventEnvelope(contract).safeParse(exampleEvent(contract, examples[type]));
          passed = parsed.success;
          detail = passed ? `The ${contract.name} example validates as a CloudEvent against its contract.` : `The ${contract.name} example does not validate.`;
        }
        return { check: `event ${type}`, passed, detail };
      });
      const evidence = [
        { check: 'channel', passed: channel !== undefined, detail: channel ? `${channel.key} is a published channel (${channel.readiness}).` : `${adapter.channel} is not a published channel.` },
        {
          check: 'standards',
          passed: unknownStandards.length === 0,
          detail: unknownStandards.length === 0 ? `Standards named: ${adapter.standards.join(', ') || 'none'}.` : `Unknown standards: ${unknownStandards.join(', ')}.`,
        },
        ...eventChecks,
        { check: 'activation', passed: true, detail: `Not activated. Gate: ${adapter.gate}` },
      ];
      return {
        adapterId: adapter.adapterId,
        conformance: evidence.every((e) => e.passed) ? ('CONFORMS_TO_PUBLISHED_CONTRACTS' as const) : ('DOES_NOT_CONFORM' as const),
        productionAcceptance: false as const,
        activationBoundary: adapter.gate,
        evidence,
      };
    }),
  };
}
