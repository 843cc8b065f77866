/**
 * The deployment settings (environment variable names) of the identity and wallet-protocol
 * activation gates, by gate. The contract table publishes which operations read them; the
 * readiness rules (functions/domain/surfaces/readiness.ts) say what a well-formed value is.
 */
export const ACTIVATION_GATE_SETTINGS = {
  IDENTITY_OIDC: ['OIDC_ISSUER_URL', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET_ARN'],
  WALLET_OPENID4VCI: ['OPENID4VCI_CREDENTIAL_ISSUER_URL', 'OPENID4VCI_AUTHORIZATION_SERVER_URL'],
  WALLET_OPENID4VP: ['OPENID4VP_VERIFIER_CLIENT_ID', 'OPENID4VP_RESPONSE_URI'],
} as const;

export type ActivationGateKey = keyof typeof ACTIVATION_GATE_SETTINGS;
export type ActivationSettingName = (typeof ACTIVATION_GATE_SETTINGS)[ActivationGateKey][number];

/** Every setting the readiness reports look at, in gate order. */
export const ACTIVATION_SETTING_NAMES: readonly ActivationSettingName[] = Object.values(ACTIVATION_GATE_SETTINGS).flat();
