import type { LivingObjectResolution } from '../../contract/schemas/objects';
import type { LogEvidence } from '#verify/checks/evidence-format';
import { resolveObject, type ObjectContent, type ObjectWindowEntry } from '../objects';

/**
 * The material of the offline-verification examples: a small example ledger holding five
 * synthetic record versions, and the object response whose record it proves.
 *
 * The log is a real one (RFC 9162 tree, C2SP checkpoint signed with Ed25519) built by the
 * ledger code from EXAMPLE_LEDGER_CONTENTS with the sandbox example key: an Ed25519 key whose
 * seed is SHA-256 of EXAMPLE_LEDGER_SEED_TEXT, so anyone can rebuild it and nobody trusts it
 * for anything else. EXAMPLE_LEDGER below is that build's output; test/unit/sandbox-offline.test.ts
 * rebuilds it and fails if a single byte differs.
 */
export const EXAMPLE_LEDGER_ORIGIN = 'sandbox.example/public-trust-verification-service/example-ledger';
export const EXAMPLE_LEDGER_SEED_TEXT = 'public-trust-verification-service: sandbox example ledger key, public and trusted by nobody';

const object = (version: number, state: string, stateSince: string): ObjectContent => ({
  reference: 'ORD-SBX-1001',
  objectType: 'ORDER',
  businessReference: 'ORDER SBX-1001',
  title: 'Order SBX-1001 (sandbox)',
  authority: 'Service platform',
  state,
  stateSince,
  version,
  freshnessSeconds: 3600,
});

const ORDER_PLACED = object(1, 'PLACED', '2026-02-26T09:00:00.000Z');
const ORDER_DELIVERED = object(2, 'DELIVERED', '2026-02-28T15:30:00.000Z');

/** The record versions of the example log, in log order; the order's delivered version is leaf 1. */
export const EXAMPLE_LEDGER_CONTENTS: readonly { reference: string; version: number; content: object }[] = [
  { reference: ORDER_PLACED.reference, version: 1, content: ORDER_PLACED },
  { reference: ORDER_DELIVERED.reference, version: 2, content: ORDER_DELIVERED },
  {
    reference: 'WTY-SBX-2001',
    version: 1,
    content: { ...object(1, 'ACTIVE', '2026-02-28T16:00:00.000Z'), reference: 'WTY-SBX-2001', objectType: 'WARRANTY', businessReference: 'WARRANTY SBX-2001', title: 'Warranty SBX-2001 (sandbox)' },
  },
  {
    reference: 'DEV-SBX-3001',
    version: 1,
    content: { ...object(1, 'IN_SERVICE', '2026-01-10T08:00:00.000Z'), reference: 'DEV-SBX-3001', objectType: 'DEVICE', businessReference: 'DEVICE SBX-3001', title: 'Device SBX-3001 (sandbox)', freshnessSeconds: 86400 },
  },
  {
    reference: 'DEV-SBX-3001',
    version: 2,
    content: { ...object(2, 'SUPERSEDED', '2026-03-01T08:00:00.000Z'), reference: 'DEV-SBX-3001', objectType: 'DEVICE', businessReference: 'DEVICE SBX-3001', title: 'Device SBX-3001 (sandbox)', freshnessSeconds: 86400 },
  },
];

/** Which leaf the examples prove: the order as delivered. */
export const EXAMPLE_PROVEN_LEAF = 1;

/**
 * Output of building the example log (see above). Do not edit by hand: the test that rebuilds
 * it prints the new value when the ledger format changes.
 */
export const EXAMPLE_LEDGER: { verifierKey: string; evidence: LogEvidence } = {
  verifierKey: 'sandbox.example/public-trust-verification-service/example-ledger+5c288eed+AeEvGJSXI/Ye7sxsDwlcUjMFUValhtLICs04ozqldENW',
  evidence: {
    format: 'svc.ledger-evidence.v1',
    version: 2,
    origin: 'sandbox.example/public-trust-verification-service/example-ledger',
    leafIndex: 1,
    treeSize: 5,
    leafHash: 'xfvdKO+y87yqaQsliCaHyBBv9W2EVdQY43zVHzOgjN4=',
    inclusionProof: [
      'AHXqTQxht5YgI9GoPRzF2+LzALH7Uy+kaoIKMzTCFQY=',
      'XEWVWITA6nfNyUrs+JMxv6qYuRMtrGRc1r9yL+SI4x0=',
      'hJlRxM8a9HfKAeeYCiI+/Hvwm8mDY9eH8qmYhrj53BQ=',
    ],
    checkpoint:
      'sandbox.example/public-trust-verification-service/example-ledger\n5\n0KlQGnBEqwfLJNRpQNWLCu32y28JHkPJAZSz8Jl/oo8=\n\n— sandbox.example/public-trust-verification-service/example-ledger XCiO7ZI1seaz1XXNstK9ExTQclfcX9aWIIFvE2K9ZM2oqZmwwEMyiNnRiR5iH8ekE+USLfQ1EfIpZ7tVoVQH5V74KAo=\n',
  },
};

/** The instant the example response was served at. */
export const EXAMPLE_SERVED_AT = '2026-03-02T18:05:00.000Z';

/** The stored head of a version: only the delivered version's evidence is shown (it is the newest). */
function head(content: ObjectContent, evidence: LogEvidence | null): ObjectWindowEntry['head'] {
  return { kind: 'OBJECT', reference: content.reference, version: content.version, content, evidence };
}

/**
 * The object response as GET /v1/objects/ORD-SBX-1001 served it at EXAMPLE_SERVED_AT, built by the
 * resolver itself; it carries the evidence of its record in current.ledger.
 */
export const EXAMPLE_OBJECT_RESPONSE: LivingObjectResolution = resolveObject({
  reference: ORDER_DELIVERED.reference,
  entries: [
    {
      at: '2026-03-02T17:50:00.000Z',
      entry: { at: '2026-03-02T17:50:00.000Z', type: 'AUTHORITY_OBSERVED', state: 'DELIVERED', source: 'COMMERCE_PLATFORM_SYNC' },
      view: { state: 'DELIVERED', lastObservedAt: '2026-03-02T17:50:00.000Z' },
      head: head(ORDER_DELIVERED, EXAMPLE_LEDGER.evidence),
    },
    {
      at: ORDER_DELIVERED.stateSince,
      entry: { at: ORDER_DELIVERED.stateSince, type: 'STATE_CHANGED', state: 'DELIVERED', previousState: 'PLACED', source: 'Service platform' },
      view: { state: 'DELIVERED', lastObservedAt: null },
      head: head(ORDER_DELIVERED, EXAMPLE_LEDGER.evidence),
    },
    {
      at: ORDER_PLACED.stateSince,
      entry: { at: ORDER_PLACED.stateSince, type: 'STATE_CHANGED', state: 'PLACED', previousState: null, source: 'Service platform' },
      view: { state: 'PLACED', lastObservedAt: null },
      head: head(ORDER_PLACED, null),
    },
  ],
  evaluation: { at: EXAMPLE_SERVED_AT, historical: false },
  integrityConfirmed: true,
  baseUrl: 'https://trust.example',
});
