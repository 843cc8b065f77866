/** The contract extension object (x-svc), as the specification states it. */
export const X_SVC = {
  scope: 'PUBLIC_READ_ONLY',
  productionAuthorityCreated: false,
  authorityModel: {
    currentTrustState: 'SERVICE_PLATFORM',
    commerceSourceData: 'EXTERNAL_COMMERCE_PLATFORM',
    commercialOrchestration: 'SERVICE_ORCHESTRATION',
    ledgerEvidence: 'INTEGRITY_ONLY',
  },
  excludedOperations: ['CREDENTIAL_ISSUANCE', 'CREDENTIAL_LIFECYCLE_CHANGE', 'ENTITLEMENT_MINTING', 'PAYMENT_CAPTURE', 'COMMERCE_MUTATION'],
  sandbox: 'Sandbox operations never issue credentials, change entitlements, call payment providers or bind external authority.',
  disclosure: 'Responses never contain customer personal data or payment account data.',
} as const;
