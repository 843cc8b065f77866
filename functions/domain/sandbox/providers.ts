import type { z } from 'zod';
import {
  CommerceSourceRequest,
  CommerceSourceResult,
  CredentialStatusRequest,
  CredentialStatusResult,
  IdentityVerifierRequest,
  IdentityVerifierResult,
  PaymentProcessorRequest,
  PaymentProcessorResult,
  WalletRequest,
  WalletResult,
} from '../../contract/schemas/sandbox';
import { PROVIDER_RUNS, type ProviderRun } from './provider-runs';

export { findProvider, providerRequest, runProvider } from './provider-runs';

/**
 * The registry of synthetic providers with their request and result schemas, from which
 * /developers/sandbox/providers.json and the provider documents are built. What a run needs is
 * in ./provider-runs.ts, without zod; the function that runs providers imports only that.
 */
export interface SandboxProvider<Request extends z.ZodType = z.ZodType, Result extends z.ZodType = z.ZodType> extends ProviderRun<Request, Result> {
  requestSchema: Request;
  resultSchema: Result;
}

const SCHEMAS: Record<string, { requestSchema: z.ZodType; resultSchema: z.ZodType }> = {
  'commerce-source': { requestSchema: CommerceSourceRequest, resultSchema: CommerceSourceResult },
  'identity-verifier': { requestSchema: IdentityVerifierRequest, resultSchema: IdentityVerifierResult },
  wallet: { requestSchema: WalletRequest, resultSchema: WalletResult },
  'payment-processor': { requestSchema: PaymentProcessorRequest, resultSchema: PaymentProcessorResult },
  'credential-status': { requestSchema: CredentialStatusRequest, resultSchema: CredentialStatusResult },
};

export const SANDBOX_PROVIDERS: readonly SandboxProvider[] = PROVIDER_RUNS.map((provider) => {
  const schemas = SCHEMAS[provider.providerId];
  if (!schemas) throw new Error(`provider ${provider.providerId} has no schemas`);
  return { ...provider, ...schemas };
});
