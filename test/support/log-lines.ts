/**
 * Collects the JSON lines written through process.stdout and process.stderr until `restore()`:
 * the Powertools Logger's log lines (`lines`), and Powertools Metrics' embedded-metric-format
 * documents as written (`emf`, those with an `_aws` member). Anything else passes through. One
 * collector at a time: a second spy on the same stream would call the first.
 */
export function collectLogLines(): { lines: Array<Record<string, unknown>>; emf: string[]; restore: () => void } {
  const lines: Array<Record<string, unknown>> = [];
  const emf: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    return jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
      if (text.startsWith('{')) {
        for (const line of text.trim().split('\n')) {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if ('_aws' in parsed) emf.push(line);
          else lines.push(parsed);
        }
        const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
        callback?.();
        return true;
      }
      return write(chunk, ...rest);
    }) as typeof stream.write);
  });
  return { lines, emf, restore: () => spies.forEach((spy) => spy.mockRestore()) };
}

/**
 * Modules loaded afresh (their own registry) while POWERTOOLS_LOG_LEVEL is `level`: the Powertools
 * Logger reads its level when it is made, and goes back to that level at every warm invocation, so
 * a test that reads log lines loads the code under test with the level it needs. Classes the code
 * under test checks with instanceof must come from the same `load`.
 */
export function loadedWithLogLevel<T>(level: string, load: () => T): T {
  const previous = process.env.POWERTOOLS_LOG_LEVEL;
  process.env.POWERTOOLS_LOG_LEVEL = level;
  try {
    let loaded: T | undefined;
    jest.isolateModules(() => {
      loaded = load();
    });
    return loaded as T;
  } finally {
    if (previous === undefined) delete process.env.POWERTOOLS_LOG_LEVEL;
    else process.env.POWERTOOLS_LOG_LEVEL = previous;
  }
}
