import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';

/**
 * One AWS::Lambda::Function as Lambda runs it: execution environments (child processes) started
 * on demand, each running one invocation at a time. The first invocation starts one (a cold
 * start: node, the runtime, the bundle's module init); an invocation that finds every environment
 * busy starts another, up to the function's reserved concurrency; an idle one is reused (warm).
 * Each gets the function's environment, a heap bounded by its memory size, and a deadline from
 * its timeout, after which the environment is stopped and the invocation fails as Lambda's does
 * ("Task timed out after N seconds"). Every line it writes is printed with the function's name.
 */

export interface FunctionDefinition {
  logicalId: string;
  name: string;
  arn: string;
  handler: string;
  runtime: string;
  /** The bundle: the asset directory that is the function's /var/task. */
  codeDirectory: string;
  /**
   * The template's Environment.Variables, resolved, plus what Lambda sets beyond the function's
   * own identity (region, credentials, log group); the host adds _HANDLER, LAMBDA_TASK_ROOT and the
   * function's name, version and memory size.
   */
  environment: Record<string, string>;
  memoryMb: number;
  timeoutSeconds: number;
  /** ReservedConcurrentExecutions (undefined: the account's unreserved pool). */
  reservedConcurrency?: number;
}

export type InvocationOutcome =
  | { ok: true; value: unknown; requestId: string }
  /** fatal: the error ended the execution environment (an uncaught exception, an exit, a timeout). */
  | { ok: false; errorType: string; errorMessage: string; requestId: string; fatal?: boolean };

export class TooManyRequests extends Error {
  constructor(name: string) {
    super(`Rate Exceeded: ${name} is at its reserved concurrency`);
    this.name = 'TooManyRequestsException';
  }
}

interface Environment {
  child: ChildProcess;
  ready: Promise<{ initMs: number } | { errorType: string; errorMessage: string }>;
  busy: boolean;
  /** Started with a configuration since replaced: stopped once its invocation ends. */
  retired?: boolean;
  /** Set while an invocation runs: how to settle it from the child's messages or its exit. */
  settle: ((outcome: InvocationOutcome) => void) | null;
  invocations: number;
}

/** Lambda's own limit for one account's unreserved concurrency (the default quota). */
const ACCOUNT_CONCURRENCY = 1000;

export class FunctionHost {
  private readonly environments: Environment[] = [];
  private readonly waiting: Array<() => void> = [];
  private closed = false;
  private current: FunctionDefinition;

  constructor(
    definition: FunctionDefinition,
    private readonly bootstrapFile: string,
    private readonly log: (line: string) => void,
  ) {
    this.current = definition;
  }

  get definition(): FunctionDefinition {
    return this.current;
  }

  /**
   * Another environment for the function, as UpdateFunctionConfiguration sets one: environments
   * started from now on get it; an idle one is stopped now, a busy one once its invocation ends.
   */
  updateEnvironment(environment: Record<string, string>): void {
    this.current = { ...this.current, environment };
    for (const started of [...this.environments]) {
      if (started.busy) started.retired = true;
      else this.stop(started);
    }
  }

  get concurrencyLimit(): number {
    return this.definition.reservedConcurrency ?? ACCOUNT_CONCURRENCY;
  }

  /** Environments started so far: one cold start each. */
  coldStarts = 0;

  /** Synchronous invocation: refused with TooManyRequests when every allowed environment is busy. */
  invoke(event: unknown): Promise<InvocationOutcome> {
    const environment = this.claim();
    if (!environment) return Promise.reject(new TooManyRequests(this.definition.name));
    return this.runOn(environment, event);
  }

  /** An invocation that waits for a free environment (what Lambda's pollers and async queue do when throttled). */
  async invokeWhenFree(event: unknown): Promise<InvocationOutcome> {
    for (;;) {
      const environment = this.claim();
      if (environment) return this.runOn(environment, event);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private claim(): Environment | null {
    if (this.closed) throw new Error(`${this.definition.name} is stopped`);
    const idle = this.environments.find((e) => !e.busy);
    if (idle) {
      idle.busy = true;
      return idle;
    }
    if (this.environments.length >= this.concurrencyLimit) return null;
    const started = this.start();
    started.busy = true;
    return started;
  }

  private release(environment: Environment): void {
    environment.busy = false;
    this.waiting.shift()?.();
  }

  private start(): Environment {
    const { definition } = this;
    const child = fork(this.bootstrapFile, [], {
      cwd: definition.codeDirectory,
      env: {
        ...definition.environment,
        _HANDLER: definition.handler,
        LAMBDA_TASK_ROOT: definition.codeDirectory,
        AWS_LAMBDA_FUNCTION_NAME: definition.name,
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(definition.memoryMb),
      },
      // Only what Lambda gives node: a heap bounded by the memory size (not the runner's own flags, loaders or inspector).
      execArgv: [`--max-old-space-size=${definition.memoryMb}`],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.coldStarts++;
    for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (line) => this.log(line));
    const startedAt = performance.now();
    const environment: Environment = {
      child,
      busy: false,
      settle: null,
      invocations: 0,
      ready: new Promise((resolve) => {
        const onMessage = (message: { type: string; error?: { errorType: string; errorMessage: string } }) => {
          if (message.type === 'ready') resolve({ initMs: performance.now() - startedAt });
          else if (message.type === 'init-error') resolve({ errorType: message.error!.errorType, errorMessage: message.error!.errorMessage });
          else return;
          child.off('message', onMessage);
        };
        child.on('message', onMessage);
        child.once('exit', (code) => resolve({ errorType: 'Runtime.ExitError', errorMessage: `RequestId: init Error: Runtime exited with error: exit status ${code}` }));
      }),
    };
    child.on('message', (message: { type: string; requestId?: string; ok?: boolean; fatal?: boolean; value?: unknown; error?: { errorType: string; errorMessage: string } }) => {
      if (message.type !== 'result' || !environment.settle) return;
      environment.settle(
        message.ok
          ? { ok: true, value: message.value, requestId: message.requestId! }
          : { ok: false, errorType: message.error!.errorType, errorMessage: message.error!.errorMessage, requestId: message.requestId!, fatal: message.fatal === true },
      );
    });
    child.once('exit', (code, signal) => {
      const index = this.environments.indexOf(environment);
      if (index >= 0) this.environments.splice(index, 1);
      environment.settle?.({ ok: false, errorType: 'Runtime.ExitError', errorMessage: `Runtime exited ${signal ? `with signal ${signal}` : `with error: exit status ${code}`}`, requestId: '', fatal: true });
      this.waiting.shift()?.();
    });
    this.environments.push(environment);
    return environment;
  }

  private async runOn(environment: Environment, event: unknown): Promise<InvocationOutcome> {
    const { definition } = this;
    const requestId = randomUUID();
    const init = await environment.ready;
    if ('errorType' in init) {
      this.stop(environment);
      this.log(`INIT_REPORT Status: error Error Type: ${init.errorType} ${init.errorMessage}`);
      return { ok: false, errorType: init.errorType, errorMessage: init.errorMessage, requestId };
    }
    const cold = environment.invocations === 0;
    environment.invocations++;
    const began = performance.now();
    this.log(`START RequestId: ${requestId} Version: $LATEST`);
    const outcome = await new Promise<InvocationOutcome>((resolve) => {
      const deadlineMs = Date.now() + definition.timeoutSeconds * 1000;
      const timer = setTimeout(() => {
        this.stop(environment);
        resolve({ ok: false, errorType: 'Sandbox.Timedout', errorMessage: `RequestId: ${requestId} Error: Task timed out after ${definition.timeoutSeconds.toFixed(2)} seconds`, requestId, fatal: true });
      }, definition.timeoutSeconds * 1000);
      environment.settle = (result) => {
        clearTimeout(timer);
        environment.settle = null;
        resolve({ ...result, requestId });
      };
      environment.child.send({ type: 'invoke', requestId, event, deadlineMs, invokedFunctionArn: definition.arn }, (error) => {
        if (error) environment.settle?.({ ok: false, errorType: 'Runtime.ExitError', errorMessage: `the execution environment is gone: ${error.message}`, requestId, fatal: true });
      });
    });
    const duration = performance.now() - began;
    this.log(`END RequestId: ${requestId}`);
    this.log(
      `REPORT RequestId: ${requestId} Duration: ${duration.toFixed(2)} ms Billed Duration: ${Math.ceil(duration)} ms Memory Size: ${definition.memoryMb} MB${cold ? ` Init Duration: ${init.initMs.toFixed(2)} ms` : ''}${outcome.ok ? '' : ` Status: error Error Type: ${outcome.errorType}`}`,
    );
    // An error that ends the environment (an uncaught exception, an exit, a timeout) replaces it; a handler's own error does not.
    if ((!outcome.ok && outcome.fatal) || environment.retired) this.stop(environment);
    else if (this.environments.includes(environment)) this.release(environment);
    return outcome;
  }

  private stop(environment: Environment): void {
    const index = this.environments.indexOf(environment);
    if (index >= 0) this.environments.splice(index, 1);
    environment.child.kill('SIGKILL');
    this.waiting.shift()?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    const exits = this.environments.map((e) => new Promise<void>((resolve) => (e.child.exitCode !== null ? resolve() : e.child.once('exit', () => resolve()))));
    for (const environment of [...this.environments]) environment.child.kill('SIGKILL');
    await Promise.all(exits);
  }
}
