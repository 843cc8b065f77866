import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * What every deployed function's AWS clients take their credentials from: the environment, where
 * Lambda puts the execution role's (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
 * The SDK's default chain looks there first and, on Lambda, never further; yet bundling the chain
 * brings its other providers (SSO, shared ini files, process, web identity, the instance metadata
 * service, login) and the STS and SSO clients they call: 132 KiB of a 324 KiB DynamoDB-client
 * bundle. The bundles therefore put this module in the place of @aws-sdk/credential-provider-node
 * (lib/stack/bundling.ts, CREDENTIALS_ALIAS), for every client: DynamoDB, S3, KMS, Secrets
 * Manager. Code run from source (npm start, the tests, npm run load) keeps the whole chain.
 *
 * Same export, same contract: `defaultProvider(init)` returns a provider of the credentials, or
 * rejects with the SDK's CredentialsProviderError naming the variables it did not find.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
