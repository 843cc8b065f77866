import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildSite } from '../../lib/publish/site';
import { canonicalSources } from '../../lib/publish/sources';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

let out: string;
beforeAll(async () => {
  out = await mkdtemp(path.join(os.tmpdir(), 'svc-build-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

test('npm run build writes every developer document, keyed as in the bucket, and drops files it no longer builds', async () => {
  await mkdir(path.join(out, 'developers'), { recursive: true });
  await writeFile(path.join(out, 'developers/retired.json'), '{}');
  const tsx = require.resolve('tsx/cli');
  const { stdout } = await run(process.execPath, [tsx, 'bin/build.ts', '--out', out], { cwd: ROOT, env: { ...process.env, RELEASE_COMMIT: '', SOURCE_DATE_EPOCH: '' } });
  expect(stdout).toMatch(/removed developers\/retired\.json/);
  const expected = buildSite(canonicalSources());
  for (const [key, bytes] of expected) expect(`${key}: ${(await readFile(path.join(out, key), 'utf8')) === bytes}`).toBe(`${key}: true`);
  await expect(readFile(path.join(out, 'developers/retired.json'))).rejects.toMatchObject({ code: 'ENOENT' });
});
