/**
 * The specification's two origins. Its machine-readable contract "declares a verification origin
 * and a general origin"; which operation belongs to which is this service's rule (docs/deploy.md):
 *
 *   verification origin: what a holder of a reference asks ("what is true about this, can I
 *     trust it?"): the /v1/ trust routes and the verification pages /verify and
 *     /trust-receipt/{reference};
 *   general origin: everything for developers and operators: /developers/ (catalogues,
 *     contracts, sandbox), /studio, and any other path;
 *   /health: both (each origin answers for its own monitoring).
 *
 * Both default to the deployed API's URL (or the local URL); CDK context sets them apart.
 */

export interface Origins {
  /** Absolute URL, no trailing slash, e.g. https://verify.example.org. */
  verificationOrigin: string;
  generalOrigin: string;
}

export type OriginName = 'verification' | 'general';

export const ORIGIN_DESCRIPTIONS: Record<OriginName, string> = {
  verification:
    'Verification origin: trust and verification reads (every /v1/ operation: objects, commercial proofs, credentials, ledger, status lists, ' +
    'trust-fabric and trust-infrastructure catalogues, activation readiness) and the verification pages /verify and /trust-receipt/{reference}; /health too.',
  general: 'General origin: developer catalogues, contracts and the sandbox (every /developers/ operation), /studio and any other page; /health too.',
};

/** The origins serving a path (in the order a client should prefer them). */
export function originsOfPath(path: string): OriginName[] {
  if (path === '/health') return ['verification', 'general'];
  if (path.startsWith('/v1/') || path === '/verify' || path.startsWith('/trust-receipt/')) return ['verification'];
  return ['general'];
}

export function originUrl(origins: Origins, name: OriginName): string {
  return name === 'verification' ? origins.verificationOrigin : origins.generalOrigin;
}

/** Both origins on the local service: http://127.0.0.1:PORT (PORT, else 3000). */
export function localOrigins(port: string | number = process.env.PORT || 3000): Origins {
  const url = `http://127.0.0.1:${port}`;
  return { verificationOrigin: url, generalOrigin: url };
}

/**
 * Placeholders standing for the origins in the origin-neutral form of a document. Digests of
 * published documents (contracts.json, the release evidence) are taken over this form, so one
 * commit has one digest whatever host serves it, and the stack can fill the origins in at deploy
 * time without invalidating them.
 */
export const NEUTRAL_ORIGINS: Origins = { verificationOrigin: '{verificationOrigin}', generalOrigin: '{generalOrigin}' };
