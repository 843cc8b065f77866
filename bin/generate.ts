/**
 * npm run generate: rewrites the code generated from the contract table (functions/generated/):
 * parameter validators, request-body checks, the route list, each route's caching and the asset catalogue; and from the
 * page sources, the compiled message catalogues, the trust receipt's in-browser check and the
 * hash of the pages' style block; and the verifier package's client types (packages/verify). The
 * output is committed, so the local server, the tests and every bundle use it without a build
 * step; test/unit/generated-from-contract.test.ts fails when it is out of date.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { operations } from '../functions/contract/operations';
import { GENERATED_ASSETS_FILE, generateAssets } from '../lib/contract/generate-assets';
import { GENERATED_BODIES_FILE, generateBodyPlans } from '../lib/contract/generate-bodies';
import { GENERATED_CACHING_FILE, generateCaching } from '../lib/contract/generate-caching';
import { GENERATED_CLIENT_TYPES_FILE, generateClientTypes } from '../lib/contract/generate-client-types';
import { generateDateFormats } from '../lib/contract/generate-date-formats';
import { generateMessages } from '../lib/contract/generate-messages';
import { GENERATED_PAGE_STYLE_FILE, generatePageStyleHash } from '../lib/contract/generate-page-style';
import { GENERATED_PARAMS_FILE, generateParamValidators } from '../lib/contract/generate-params';
import { GENERATED_RECEIPT_SCRIPT_FILE, generateReceiptScript } from '../lib/contract/generate-receipt-script';
import { GENERATED_ROUTES_FILE, generateRoutes } from '../lib/contract/generate-routes';

async function main(): Promise<void> {
  for (const [file, source] of [
    [GENERATED_PARAMS_FILE, generateParamValidators(operations)],
    [GENERATED_ROUTES_FILE, generateRoutes(operations)],
    [GENERATED_CACHING_FILE, generateCaching(operations)],
    [GENERATED_ASSETS_FILE, generateAssets(operations)],
    [GENERATED_BODIES_FILE, generateBodyPlans(operations)],
    ...generateMessages(),
    ...generateDateFormats(),
    [GENERATED_RECEIPT_SCRIPT_FILE, generateReceiptScript()],
    [GENERATED_PAGE_STYLE_FILE, generatePageStyleHash()],
    [GENERATED_CLIENT_TYPES_FILE, await generateClientTypes()],
  ]) {
    mkdirSync(path.dirname(path.join(__dirname, '..', file)), { recursive: true });
    writeFileSync(path.join(__dirname, '..', file), source);
    console.log(`wrote ${file}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
