import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The design card names the runtime every function ships with: the AWS SDK's DynamoDB client,
 * @middy/core and the Powertools Logger. They are runtime dependencies (what `npm ci --omit=dev`
 * installs and a deployment carries), never development-only ones; test/unit/bundle-contents.test.ts
 * and test/infra/synth.test.ts hold every bundle to carrying them.
 */
const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

test.each(['@aws-sdk/client-dynamodb', '@middy/core', '@aws-lambda-powertools/logger'])('%s is a runtime dependency', (name) => {
  expect({ name, dependency: name in manifest.dependencies, devDependency: name in manifest.devDependencies }).toEqual({ name, dependency: true, devDependency: false });
});

test('@middy/core is the 7.x line (standard mode loads no node:stream at start)', () => {
  expect(manifest.dependencies['@middy/core']).toMatch(/^\^7\./);
});
