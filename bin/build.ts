/** npm run build: every published artefact, generated from the canonical sources into dist/. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const run = (script: string) => execFileSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, script)], { stdio: 'inherit' });
run('contract.ts');
