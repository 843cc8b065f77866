/**
 * The JSON-LD contexts the service's credential documents name. Plain constants without zod, so
 * that the credential projections do not load the contract's schemas (schemas/credentials.ts
 * re-exports them). docs/credentials.md#json-ld says why each document names what it names.
 */

/** The W3C Verifiable Credentials 2.0 base context. */
export const VC_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';

/**
 * The VC 2.0 context for terms no context defines: `@vocab` maps each of them to
 * https://www.w3.org/ns/credentials/undefined-term#NAME. The VC projection names it for the
 * issuer's own vocabulary (its credential type, the subject's type, its public claims), which the
 * issuer defines and the service only carries: a record may hold any public claims, and the
 * service must not give them a meaning of its own.
 */
export const UNDEFINED_TERMS_CONTEXT = 'https://www.w3.org/ns/credentials/undefined-terms/v2';

/**
 * The service's own context, version 1: the one term the service adds to a credential document,
 * `logged` (a status list credential's version as the ledger logged it, and its ledger evidence).
 * It is a JSON literal (`@json`): the record is the exact JSON whose RFC 8785 form the ledger hashed,
 * and its inclusion proof is an ordered list, so it is kept as JSON, not read as RDF statements
 * (which would drop the order of the proof's hashes).
 *
 * Served at TRUST_CONTEXT_PATH on the service's own origin, and bundled here for processors that
 * must not fetch contexts (a Data Integrity signer or verifier pins its contexts). A published
 * version never changes (a test holds its bytes); a change is a new version at a new path.
 */
export const TRUST_CONTEXT_PATH = '/v1/contexts/trust/v1.json';

/** The vocabulary IRIs of the service's terms: the same in every deployment, whatever its origin. */
export const TRUST_VOCABULARY = 'urn:svc:vocabulary:';

export const TRUST_CONTEXT_V1 = {
  '@context': {
    '@version': 1.1,
    '@protected': true,
    logged: { '@id': `${TRUST_VOCABULARY}logged`, '@type': '@json' },
  },
} as const;

/** The absolute URL of the service's context on the origin at `baseUrl`. */
export const trustContextUrl = (baseUrl: string): string => `${baseUrl}${TRUST_CONTEXT_PATH}`;
