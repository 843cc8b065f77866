import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/**
 * Flags for a headless test browser on a machine with no network but loopback: no background
 * look-ups, no sandbox (tests run as root in CI), no GPU.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const PROJECT_ROOT = path.resolve(__dirname, '../..');

/**
 * The Chromium the page tests drive, in this order: CHROMIUM_PATH when set, the system package
 * (/usr/bin/chromium), else the Chromium shipped inside the @sparticuz/chromium npm package (a
 * devDependency, so `npm ci` alone provides a browser). That package is ESM and computes its
 * paths from import.meta, so it is asked from a child Node process rather than through jest's
 * CommonJS transform; it unpacks the browser into the temp folder once (about 2 s).
 *
 * Only the executable is taken from that package: its default flags are made for Lambda
 * (--single-process, --disable-web-security, --allow-running-insecure-content) and would make
 * CSP and same-origin checks prove nothing, so the tests use CHROMIUM_ARGS instead.
 */
export function chromiumExecutable(): string {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist`);
    return configured;
  }
  if (existsSync(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM;
  try {
    const script = "import c from '@sparticuz/chromium'; process.stdout.write(await c.executablePath());";
    const executable = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 120_000 }).trim();
    if (!existsSync(executable)) throw new Error(`@sparticuz/chromium reported ${executable}, which does not exist`);
    return executable;
  } catch (error) {
    throw new Error(
      `No Chromium found: neither ${SYSTEM_CHROMIUM} nor the @sparticuz/chromium devDependency could provide one ` +
        `(${(error as Error).message.split('\n')[0]}). Run \`npm ci\`, or \`apt-get install -y chromium\`, or set CHROMIUM_PATH.`,
    );
  }
}

/** Starts the test browser (see chromiumExecutable for where it comes from). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS });
}
