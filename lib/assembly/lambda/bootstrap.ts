/**
 * The runtime inside one local execution environment (a child process per function instance),
 * doing what the Node.js managed runtime does: load the handler named by _HANDLER from
 * LAMBDA_TASK_ROOT (module init: the cold start), then run one invocation at a time with the
 * event and a context whose remaining time counts down to the invocation's deadline. It talks to
 * the runner over the IPC channel; the function's own output (its log lines) goes to stdout and
 * stderr untouched. Built with esbuild and run by plain `node`: no loader, nothing of the runner.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

type Handler = (event: unknown, context: unknown, callback?: (error: unknown, result?: unknown) => void) => unknown;

interface InvokeMessage {
  type: 'invoke';
  requestId: string;
  event: unknown;
  deadlineMs: number;
  invokedFunctionArn: string;
}

function send(message: Record<string, unknown>): void {
  process.send?.(message);
}

function errorOf(error: unknown): { errorType: string; errorMessage: string; stack: string[] } {
  if (error instanceof Error) return { errorType: error.name || 'Error', errorMessage: error.message, stack: (error.stack ?? '').split('\n') };
  return { errorType: 'Error', errorMessage: typeof error === 'string' ? error : JSON.stringify(error), stack: [] };
}

async function loadHandler(): Promise<Handler> {
  const taskRoot = process.env.LAMBDA_TASK_ROOT ?? process.cwd();
  const spec = process.env._HANDLER ?? '';
  const dot = spec.lastIndexOf('.');
  if (dot <= 0) throw Object.assign(new Error(`Bad handler ${spec}: expected FILE.EXPORT`), { name: 'Runtime.MalformedHandlerName' });
  const file = path.resolve(taskRoot, spec.slice(0, dot));
  const name = spec.slice(dot + 1);
  let module: Record<string, unknown> | undefined;
  for (const extension of ['.js', '.cjs', '.mjs']) {
    try {
      // biome-ignore lint/style/noCommonJs: Lambda's Node.js runtime loads a .js or .cjs handler with require (a bundle is CommonJS), an .mjs one with import.
      module = extension === '.mjs' ? await import(pathToFileURL(file + extension).href) : require(file + extension);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' && (error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    }
  }
  if (!module) throw Object.assign(new Error(`Cannot find module '${spec.slice(0, dot)}'`), { name: 'Runtime.ImportModuleError' });
  const handler = module[name] ?? (module.default as Record<string, unknown> | undefined)?.[name];
  if (typeof handler !== 'function') throw Object.assign(new Error(`${spec} is undefined or not exported`), { name: 'Runtime.HandlerNotFound' });
  return handler as Handler;
}

function contextFor(message: InvokeMessage) {
  const env = process.env;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: message.invokedFunctionArn,
    memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: message.requestId,
    logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, message.deadlineMs - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Runs the handler: a promise it returns, or the callback it calls, whichever settles first. */
function run(handler: Handler, message: InvokeMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const callback = (error: unknown, result?: unknown) => (error ? reject(error) : resolve(result));
    try {
      const out = handler(message.event, contextFor(message), callback);
      if (out && typeof (out as Promise<unknown>).then === 'function') (out as Promise<unknown>).then(resolve, reject);
      else if (handler.length < 3) resolve(out);
    } catch (error) {
      reject(error);
    }
  });
}

let current: string | null = null;

// An error no invocation caught ends the environment, as on Lambda; the runner starts another.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (error: unknown) => {
    const described = errorOf(error);
    // fatal: the environment ends with this invocation.
    if (current) send({ type: 'result', requestId: current, ok: false, fatal: true, error: { ...described, errorType: event === 'unhandledRejection' ? 'Runtime.UnhandledPromiseRejection' : described.errorType } });
    else send({ type: 'init-error', error: described });
    process.exit(1);
  });
}

loadHandler().then(
  (handler) => {
    process.on('message', (message: InvokeMessage) => {
      if (message?.type !== 'invoke') return;
      current = message.requestId;
      run(handler, message).then(
        (value) => {
          current = null;
          send({ type: 'result', requestId: message.requestId, ok: true, value: value === undefined ? null : value });
        },
        (error: unknown) => {
          current = null;
          send({ type: 'result', requestId: message.requestId, ok: false, error: errorOf(error) });
        },
      );
    });
    send({ type: 'ready' });
  },
  (error: unknown) => {
    send({ type: 'init-error', error: errorOf(error) });
    process.exit(1);
  },
);
