import { findProvider, PROVIDER_RUNS, runProvider } from '../domain/sandbox/provider-runs';
import { Problem } from '../http/problem';
import { sandboxHandler } from './sandbox-request';
import { parseJsonBody } from '../domain/json-input';

const registered = PROVIDER_RUNS.map((p) => p.providerId).join(', ');

/** POST /developers/sandbox/providers/{providerId}/run: the provider is looked up before the body is read. */
export const handler = sandboxHandler((request) => {
  const providerId = request.pathParameters.providerId ?? '';
  const provider = findProvider(providerId);
  if (!provider) {
    throw new Problem('PROVIDER_NOT_REGISTERED', `No synthetic provider is registered as '${providerId.slice(0, 64)}'. Registered: ${registered}.`, {
      providerId: providerId.slice(0, 64),
      registeredProviders: PROVIDER_RUNS.map((p) => p.providerId),
    });
  }
  return runProvider(provider, parseJsonBody(request.body, provider.requestPlan, { optional: false }));
});
