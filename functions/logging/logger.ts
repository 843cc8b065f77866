import { writeSync } from 'node:fs';
import type { Context } from 'aws-lambda';

/**
 * Structured JSON log lines in the Powertools for AWS Lambda format: the same keys in the same
 * order (level, message, timestamp, service, cold_start, function_*, sampling_rate, xray_trace_id,
 * then the appended keys, then the call's own), the same levels and the same variables
 * (POWERTOOLS_LOG_LEVEL or LOG_LEVEL, AWS_LAMBDA_LOG_LEVEL from Lambda's advanced logging
 * controls first, POWERTOOLS_SERVICE_NAME), so log queries and dashboards written for Powertools
 * read these lines unchanged. test/unit/logger.test.ts holds every line to the one the Powertools
 * Logger writes for the same calls.
 *
 * Why not the Powertools Logger itself: it raises every function's cold-start floor. Loading it
 * imports node:console and the whole of node:crypto (for log sampling, unused here), and
 * constructing it opens process.stdout as a stream (on Lambda's pipe: node:net and the stream
 * internals); on its own it starts at 1.26-1.33x an empty module, more than a function that reads
 * nothing may take in all (1.2x; README, Performance). Here a line is written with one writeSync to
 * the descriptor, which needs none of that.
 */

/** Powertools' thresholds; a line is written when its level is at or above the configured one. */
const LEVELS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type LevelName = keyof typeof LEVELS;

/** Keys Powertools keeps for itself: a call or appended key by these names is dropped. */
const RESERVED = new Set(['level', 'message', 'sampling_rate', 'service', 'timestamp']);

/**
 * Adds keys as Powertools merges them at the top level: a key replaces an earlier one in its place,
 * except that undefined never replaces a value. (Powertools also merges two plain objects under one
 * key; the service never appends an object, nor gives one key twice in a call.)
 */
function mergeKeys(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined || target[key] === undefined) target[key] = value;
  }
}

function withoutReserved(keys: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(keys).filter(([key]) => !RESERVED.has(key)));
}

/** What a call may add: keys (an object) or an error (logged under `error`). */
export type LogExtra = Record<string, unknown> | Error | undefined;

/** Writes one whole line to descriptor 1 (stdout) or 2 (stderr). */
export type LineWriter = (fd: 1 | 2, line: string) => void;

/** A level as the environment names it: exactly, in capitals (as Powertools reads it); FATAL is CRITICAL. */
function levelFrom(value: string | undefined): LevelName | undefined {
  const name = value?.trim();
  const level = name === 'FATAL' ? 'CRITICAL' : name;
  return level && level in LEVELS ? (level as LevelName) : undefined;
}

/** Descriptors that once refused a write with EAGAIN: their lines go through the stream from then on. */
const throughStream = new Set<1 | 2>();

/**
 * One writeSync per line, the way Lambda's runtime writes its own log lines. A descriptor that
 * something made non-blocking (Node does, once process.stdout exists on a pipe) may refuse with
 * EAGAIN while the pipe is full: the rest of that line, and every later line to that descriptor,
 * go through the process's stream, which queues them in order. Any other failure to write is
 * dropped, as Node's Console drops it: a log line never fails a request.
 */
export const writeLine: LineWriter = (fd, line) => {
  const bytes = Buffer.from(`${line}\n`);
  let written = 0;
  try {
    if (!throughStream.has(fd)) {
      while (written < bytes.length) written += writeSync(fd, bytes, written);
      return;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    throughStream.add(fd);
  }
  try {
    (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(written));
  } catch {
    // as above: never fails a request
  }
};

/** Powertools' error shape: name, the first stack frame's file:line, message, stack, cause, own keys. */
function formatError(error: Error): Record<string, unknown> {
  const { name, message, stack, cause, ...own } = error as Error & Record<string, unknown>;
  const frame = typeof stack === 'string' ? stack.split('\n').map((line) => /\(([^()]*?):(\d+?):(\d+?)\)\\?$/.exec(line)).find(Boolean) : undefined;
  return { name, location: frame ? `${frame[1]}:${Number(frame[2])}` : '', message, stack, cause: cause instanceof Error ? formatError(cause) : cause, ...own };
}

/** JSON.stringify replacer: errors formatted, bigints as strings, a value inside itself left out. */
function replacer(): (this: unknown, key: string, value: unknown) => unknown {
  const ancestors: unknown[] = [];
  return function (this: unknown, _key: string, value: unknown) {
    const replaced = value instanceof Error ? formatError(value) : value;
    if (typeof replaced === 'bigint') return replaced.toString();
    if (typeof replaced === 'object' && replaced !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(replaced)) return undefined;
      ancestors.push(replaced);
    }
    return replaced;
  };
}

export interface LoggerOptions {
  serviceName: string;
  /** Where lines go; tests pass a collector. */
  write?: LineWriter;
  /** The environment read for levels, the cold-start type and the X-Ray trace id. */
  env?: NodeJS.ProcessEnv;
}

export class Logger {
  readonly #service: string;
  readonly #write: LineWriter;
  readonly #env: NodeJS.ProcessEnv;
  #threshold: number;
  /** Only an on-demand start is a cold start; provisioned concurrency or unknown never is (as Powertools). */
  #coldStart: boolean;
  #context: Context | undefined;
  #keys: Record<string, unknown> = {};

  constructor({ serviceName, write = writeLine, env = process.env }: LoggerOptions) {
    this.#write = write;
    this.#env = env;
    // Powertools' order: the name given, else POWERTOOLS_SERVICE_NAME, else its placeholder.
    this.#service = [serviceName, env.POWERTOOLS_SERVICE_NAME].find((name) => name?.trim()) ?? 'service_undefined';
    const level = levelFrom(env.AWS_LAMBDA_LOG_LEVEL) ?? levelFrom(env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL) ?? 'INFO';
    this.#threshold = LEVELS[level];
    this.#coldStart = env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() === 'on-demand';
  }

  /** Changes the level from now on (TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL or SILENT). */
  setLogLevel(level: string): void {
    const name = levelFrom(level.toUpperCase());
    if (!name) throw new Error(`unknown log level '${level}'`);
    this.#threshold = LEVELS[name];
  }

  /** The invocation's context: its keys are on every line until the next one. */
  addContext(context: Context): void {
    this.#context = { ...context, coldStart: this.#coldStart } as Context & { coldStart: boolean };
    this.#coldStart = false;
  }

  /** Keys on every following line (until resetKeys). */
  appendKeys(keys: Record<string, unknown>): void {
    mergeKeys(this.#keys, withoutReserved(keys));
  }

  resetKeys(): void {
    this.#keys = {};
  }

  debug(message: string, ...extra: LogExtra[]): void {
    this.#log('DEBUG', message, extra);
  }

  info(message: string, ...extra: LogExtra[]): void {
    this.#log('INFO', message, extra);
  }

  warn(message: string, ...extra: LogExtra[]): void {
    this.#log('WARN', message, extra);
  }

  error(message: string, ...extra: LogExtra[]): void {
    this.#log('ERROR', message, extra);
  }

  #log(level: LevelName, message: string, extra: LogExtra[]): void {
    if (LEVELS[level] < this.#threshold) return;
    const context = this.#context as (Context & { coldStart?: boolean; tenantId?: string }) | undefined;
    const line: Record<string, unknown> = {
      level,
      message,
      timestamp: new Date().toISOString(),
      service: this.#service,
      cold_start: context?.coldStart,
      function_arn: context?.invokedFunctionArn,
      function_memory_size: context?.memoryLimitInMB,
      function_name: context?.functionName,
      function_request_id: context?.awsRequestId,
      sampling_rate: 0,
      xray_trace_id: /(?:^|;)\s*Root=([^;]+)/.exec(this.#env._X_AMZN_TRACE_ID ?? '')?.[1],
      tenant_id: context?.tenantId,
    };
    // The appended keys that have a value, then the call's own (which may unset one), over the base keys.
    const added = Object.fromEntries(Object.entries(this.#keys).filter(([, value]) => value !== undefined));
    for (const item of extra) {
      if (item instanceof Error) added.error = item;
      else if (item) Object.assign(added, withoutReserved(item));
    }
    mergeKeys(line, added);
    for (const key of Object.keys(line)) if (line[key] === undefined || line[key] === null || line[key] === '') delete line[key];
    this.#write(LEVELS[level] >= LEVELS.WARN ? 2 : 1, JSON.stringify(line, replacer()));
  }
}
