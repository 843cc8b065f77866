// Calls the contract does not allow: each line below must fail to type-check (the test counts the errors by line).
import { createTrustClient, verifyEvidence } from '@public-trust/verify';

export async function misuse(): Promise<void> {
  const client = createTrustClient({ baseUrl: 'https://trust.example.com' });
  await client.GET('/v1/objects/{reference}', { params: { path: { ref: 'ORD-2026-0001' } } }); // line 6: no such parameter
  await client.GET('/v1/no-such-route'); // line 7: no such route
  await client.POST('/v1/objects/{reference}', { params: { path: { reference: 'x' } } }); // line 8: reads only
  await verifyEvidence({}, { trustedKeys: 'one key' }); // line 9: keys are a list
}
