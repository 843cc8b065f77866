import fs from 'node:fs';

/**
 * Collects the JSON log lines the service's logger writes (functions/logging/logger.ts writes each
 * with one writeSync to descriptor 1 or 2) until `restore()`. Anything else written passes through.
 */
export function collectLogLines(): { lines: Array<Record<string, unknown>>; restore: () => void } {
  const lines: Array<Record<string, unknown>> = [];
  const writeSync = fs.writeSync.bind(fs) as (...args: unknown[]) => number;
  const spy = jest.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
    if ((fd === 1 || fd === 2) && Buffer.isBuffer(data)) {
      const offset = typeof rest[0] === 'number' ? rest[0] : 0;
      const text = data.subarray(offset).toString('utf8');
      if (text.startsWith('{')) {
        for (const line of text.trim().split('\n')) lines.push(JSON.parse(line) as Record<string, unknown>);
        return data.length - offset;
      }
    }
    return writeSync(fd, data, ...rest);
  }) as typeof fs.writeSync);
  return { lines, restore: () => spy.mockRestore() };
}
