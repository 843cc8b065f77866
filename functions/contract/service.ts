/** Identity constants shared by handlers and the published contract (no table import needed). */
export const SERVICE_NAME = 'public-trust-verification-service';
export const CONTRACT_VERSION = '1.0.0';
