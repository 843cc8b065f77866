/**
 * The W3C Verifiable Credentials 2.0 base context. A plain constant without zod, so that the
 * credential projections do not load the contract's schemas (schemas/credentials.ts re-exports it).
 */
export const VC_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';
