/**
 * npm run generate: rewrites the code generated from the contract table (functions/generated/).
 * The output is committed, so the local server, the tests and every bundle use it without a
 * build step; test/unit/generated-params.test.ts fails when it is out of date.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { operations } from '../functions/contract/operations';
import { GENERATED_PARAMS_FILE, generateParamValidators } from '../lib/contract/generate-params';

const file = path.join(__dirname, '..', GENERATED_PARAMS_FILE);
writeFileSync(file, generateParamValidators(operations));
console.log(`wrote ${GENERATED_PARAMS_FILE}`);
