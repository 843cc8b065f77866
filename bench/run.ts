/**
 * npm run bench [-- SECTION...]: runs every bench/sections/*.ts (or the named ones), each in a
 * fresh Node.js process, prints one table and writes bench/results.json. Named runs replace
 * only their sections in an existing results.json.
 */
import { fork } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderTable, type SectionResult } from './lib/report';
import type { RunnerMessage } from './lib/section-runner';

const SECTIONS_DIR = path.join(__dirname, 'sections');
const RESULTS = path.join(__dirname, 'results.json');
/** A section that has not answered by then is stopped and reported as failed. */
const SECTION_TIMEOUT_MS = 5 * 60_000;

function runSection(file: string, anchor: Date): Promise<{ rows: SectionResult['rows']; error?: string }> {
  return new Promise((resolve) => {
    const child = fork(path.join(__dirname, 'lib/section-runner.ts'), [file, anchor.toISOString()], {
      // --expose-gc: sections that report memory measure it after a collection, not mid-cycle garbage.
      execArgv: [...process.execArgv, '--expose-gc'],
      // PUBLIC_BASE_URL: the configured origin the functions make their links from (a local server sets its own).
      env: { PUBLIC_BASE_URL: 'https://trust.example.org', ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let message: RunnerMessage | undefined;
    let timer = setTimeout(() => child.kill('SIGKILL'), SECTION_TIMEOUT_MS);
    child.on('message', (m: RunnerMessage) => {
      // A section that needs longer says so first (bulk loads of 200,000 records).
      if ('timeoutMs' in m) {
        clearTimeout(timer);
        timer = setTimeout(() => child.kill('SIGKILL'), m.timeoutMs);
      } else message = m;
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (message && 'rows' in message) resolve({ rows: message.rows });
      else resolve({ rows: [], error: (message && 'error' in message ? message.error : undefined) ?? `the section process ended (${signal ?? `exit ${code}`}) without results` });
    });
  });
}

interface ResultsFile {
  generatedAt: string;
  environment: Record<string, unknown>;
  sections: (SectionResult & { file: string; measuredAt: string })[];
}

async function main(): Promise<number> {
  const wanted = process.argv.slice(2);
  const files = readdirSync(SECTIONS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .filter((f) => wanted.length === 0 || wanted.includes(path.basename(f, '.ts')));
  if (files.length === 0) {
    console.error(`no bench section matches ${wanted.join(', ')} (sections: ${readdirSync(SECTIONS_DIR).join(', ')})`);
    return 2;
  }
  const anchor = new Date();
  const results: ResultsFile['sections'] = [];
  for (const file of files) {
    process.stderr.write(`bench: ${file} ...\n`);
    const started = Date.now();
    const { rows, error } = await runSection(path.join(SECTIONS_DIR, file), anchor);
    const durationMs = Date.now() - started;
    results.push({ name: path.basename(file, '.ts'), file: `bench/sections/${file}`, durationMs, rows, measuredAt: anchor.toISOString(), ...(error ? { error } : {}) });
    process.stderr.write(`bench: ${file} ${error ? 'FAILED' : 'done'} in ${(durationMs / 1000).toFixed(1)} s\n`);
    if (error) process.stderr.write(`${error}\n`);
  }

  const previous: ResultsFile | undefined = wanted.length > 0 && existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : undefined;
  const merged = [...(previous?.sections ?? []).filter((s) => !results.some((r) => r.name === s.name)), ...results].sort((a, b) => a.name.localeCompare(b.name));
  const out: ResultsFile = {
    generatedAt: new Date().toISOString(),
    environment: {
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      arch: os.arch(),
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      note: 'Figures from one run on this machine; compare ratios within a run, not absolute numbers across machines.',
    },
    sections: merged,
  };
  writeFileSync(`${RESULTS}.tmp`, `${JSON.stringify(out, null, 2)}\n`);
  renameSync(`${RESULTS}.tmp`, RESULTS);

  console.log(renderTable(results));
  console.log(`\nwrote ${path.relative(process.cwd(), RESULTS)} (${os.cpus().length} CPUs, Node ${process.version})`);
  return results.some((r) => r.error) ? 1 : 0;
}

main().then((code) => process.exit(code));
