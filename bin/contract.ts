/** npm run contract: writes the public OpenAPI 3.1 contract and the API Gateway import document. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildImportDocument, PLACEHOLDER_TARGETS } from '../lib/contract/import-document';
import { buildOpenApi } from '../lib/contract/openapi';

export const CONTRACT_DIR = path.resolve(__dirname, '../dist/contract');

async function main(): Promise<void> {
  await mkdir(CONTRACT_DIR, { recursive: true });
  const files = {
    'openapi.json': buildOpenApi(),
    'apigateway-import.json': buildImportDocument(PLACEHOLDER_TARGETS),
  };
  for (const [name, doc] of Object.entries(files)) {
    await writeFile(path.join(CONTRACT_DIR, name), `${JSON.stringify(doc, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), path.join(CONTRACT_DIR, name))}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
