/** What catalogue and readiness documents disclose: descriptions of the service, never a record or a secret. */
export const CATALOGUE_DISCLOSURE = { class: 'PUBLIC_CATALOGUE', containsCustomerPii: false, containsPaymentAccountData: false } as const;
