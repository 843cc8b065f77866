// A TypeScript relying party: the package's declarations, strict, with the DOM library only (no Node.js types).
import { createTrustClient, fetchAndVerify, verifyCheckpoint, verifyConsistency, verifyEvidence, type Check, type EvidenceResult } from '@public-trust/verify';

export async function check(baseUrl: string, key: string): Promise<string[]> {
  const client = createTrustClient({ baseUrl });
  const { data, error } = await client.GET('/v1/objects/{reference}', { params: { path: { reference: 'ORD-2026-0001' }, query: { asOf: '2026-11-20T00:00:00Z' } } });
  if (error || !data) return [];
  const state: string = data.current.state;
  const confirmed: boolean = data.current.evidenceIntegrityConfirmed;
  const result: EvidenceResult = await verifyEvidence(data, { trustedKeys: [key] });
  const fetched = await fetchAndVerify('CRED-2026-0001', { baseUrl, kind: 'credential', trustedKeys: [key], witnesses: [], quorum: 0 });
  const names: Check['name'][] = [...result.checks, ...fetched.checks].map((c) => c.name);
  const ledger = await client.GET('/v1/ledger');
  const note = ledger.data?.latestCheckpoint?.note ?? '';
  const checkpoint = await verifyCheckpoint(note, { trustedKeys: [key] });
  const grew = await verifyConsistency(note, note, [], { trustedKeys: [key] });
  return [state, String(confirmed), ...names, String(checkpoint.treeSize), String(grew.ok)];
}
