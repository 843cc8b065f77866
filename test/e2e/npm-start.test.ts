import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { npmStart, type NpmStart } from '../support/npm-start';

/**
 * `npm start` as a person runs it: bin/serve.ts from source, through tsx, in a process of its own
 * (the other end-to-end tests start the same service inside Jest, whose module system resolves
 * packages its own way). Every route of /developers/sandbox/examples.json answers without a server
 * error, and every sandbox example with 200: the handlers, their middy boundary and every package
 * they import load as `npm start` loads them.
 */
let service: NpmStart;
let url: string;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
  service = await npmStart(['--data', dataDir]);
  url = service.url;
}, 90_000);

afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Examples {
  tryIt: { method: string; url: string }[];
  examples: { name: string; method: string; path: string; body: unknown }[];
}

test('every route tried and every sandbox example answers, none with a server error', async () => {
  const examples = (await (await fetch(`${url}/developers/sandbox/examples.json`)).json()) as Examples;
  expect(examples.tryIt.length).toBeGreaterThan(20);
  const answered: string[] = [];
  for (const { method, url: target } of examples.tryIt) {
    const res = await fetch(`${url}${target}`, { method, headers: { accept: 'text/html' } });
    await res.arrayBuffer();
    answered.push(`${res.status < 500 ? 'ok' : res.status} ${method} ${target}`);
  }
  for (const example of examples.examples) {
    const res = await fetch(`${url}${example.path}`, { method: example.method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(example.body) });
    await res.arrayBuffer();
    answered.push(`${res.status === 200 ? 'ok' : res.status} ${example.method} ${example.name}`);
  }
  expect(answered.filter((line) => !line.startsWith('ok '))).toEqual([]);
  expect(service.output()).not.toMatch(/unexpected error|ERR_PACKAGE_PATH_NOT_EXPORTED/);
}, 60_000);

test('the banner says ready only as /health does: after the demo data is loaded, OK', async () => {
  expect(service.output()).toContain('Ready: /health says OK (the table holds a completed load).');
  const health = (await (await fetch(`${url}/health`)).json()) as { status: string };
  expect(health.status).toBe('OK');
});
