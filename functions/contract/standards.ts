/**
 * The one table of standards the service aligns with, as the specification states them. Every
 * catalogue that names a standard (developer catalogue, standards catalogue, trust
 * infrastructure, adapter manifest) reads this table; nothing else spells a key or a maturity.
 *
 * Maturity is a statement about this service's own implementation, never a conformance claim:
 * formal conformance is not asserted for any entry (see docs/catalogues.md, "Formal claims").
 */
export const STANDARD_MATURITIES = ['IMPLEMENTATION_READY', 'TARGET_ALIGNMENT', 'REFERENCE'] as const;
export type StandardMaturity = (typeof STANDARD_MATURITIES)[number];

export interface StandardEntry {
  key: string;
  standard: string;
  maturity: StandardMaturity;
  /** What the maturity means here, including what stays gated. */
  notes: string;
}

export const STANDARDS = [
  {
    key: 'OIDC_FEDERATION',
    standard: 'OpenID Connect 1.0',
    maturity: 'IMPLEMENTATION_READY',
    notes: 'Identity settings are inspected by /v1/activation-readiness; public reads carry no credential.',
  },
  {
    key: 'OAUTH_RESOURCE_AUTHORIZATION',
    standard: 'OAuth 2.x',
    maturity: 'TARGET_ALIGNMENT',
    notes: 'Resource authorization is a target; no protected route is published.',
  },
  {
    key: 'FIDO_WEBAUTHN_AUTHENTICATION',
    standard: 'FIDO2/WebAuthn',
    maturity: 'TARGET_ALIGNMENT',
    notes: 'Authenticator-bound sign-in is a target for operating surfaces; nothing public depends on it.',
  },
  {
    key: 'SCIM_PROVISIONING',
    standard: 'SCIM 2.0',
    maturity: 'TARGET_ALIGNMENT',
    notes: 'Provisioning is a target; the public service holds no user accounts.',
  },
  {
    key: 'W3C_VC_2_CREDENTIAL',
    standard: 'W3C VC 2.0 projection',
    maturity: 'IMPLEMENTATION_READY',
    notes: 'Existing credentials are projected into a W3C VC 2.0 representation; no credential is issued.',
  },
  {
    key: 'OPENID4VCI_ISSUANCE',
    standard: 'OpenID4VCI 1.0 metadata foundations',
    maturity: 'IMPLEMENTATION_READY',
    notes: 'Live authorization and credential endpoints are gated.',
  },
  {
    key: 'OPENID4VP_PRESENTATION',
    standard: 'OpenID4VP 1.0 presentation-definition foundations',
    maturity: 'IMPLEMENTATION_READY',
    notes: 'Live wallet transport is gated.',
  },
  {
    key: 'EUDI_WALLET_INTEROP',
    standard: 'EUDI ARF',
    maturity: 'REFERENCE',
    notes: 'Target profiles are published at /developers/standards/eudi-arf3.json; no external conformance is asserted.',
  },
  {
    key: 'OPEN_BADGES_3_PRESENTATION',
    standard: 'Open Badges 3.0',
    maturity: 'REFERENCE',
    notes: 'Used as a reference vocabulary for achievement-style credentials; nothing is issued.',
  },
  {
    key: 'EPCIS_EVENT_INTEROP',
    standard: 'EPCIS 2.x projection of custody, transformation and provenance events',
    maturity: 'IMPLEMENTATION_READY',
    notes: 'Lifecycle events project onto EPCIS 2.x object events; capture interfaces are not offered.',
  },
  {
    key: 'UDI_REGULATORY_REFERENCE',
    standard: 'resolves medical-device identifiers to regulatory source references',
    maturity: 'IMPLEMENTATION_READY',
    notes: 'A reference to the regulatory source, never a regulatory decision.',
  },
] as const satisfies readonly StandardEntry[];

export type StandardKey = (typeof STANDARDS)[number]['key'];
