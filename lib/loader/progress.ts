/**
 * A progress line on stderr with the rate and an ETA: redrawn in place on a terminal (at most
 * five times a second), else one line at most every second (logs, CI, a parent process reading
 * it), and always the last state once done.
 */
export interface ProgressLine {
  /** `done` of `total` (total 0: unknown, no percentage or ETA); `extra` is shown after the counts. The first update starts the clock (call it with 0 when the work begins). */
  update(done: number, total: number, extra?: string): void;
  /** Ends the line (prints the last state if it was not shown); idempotent, and silent when nothing was updated. */
  done(): void;
}

const formatAmount = (n: number, unit: string) => (unit === 'bytes' ? (n / 2 ** 20).toFixed(1) : Math.round(n).toLocaleString('en-US'));
const formatCount = (n: number, unit: string) => `${formatAmount(n, unit)} ${unit === 'bytes' ? 'MiB' : unit}`;

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const whole = Math.ceil(seconds);
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min ${whole % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The text of one progress state (exported for its test). */
export function progressText(label: string, unit: string, done: number, total: number, elapsedSeconds: number, extra?: string): string {
  const rate = elapsedSeconds > 0 ? done / elapsedSeconds : 0;
  const counts = total > 0 ? `${formatAmount(done, unit)}/${formatCount(total, unit)}` : formatCount(done, unit);
  const parts = [`${label}: ${counts}`];
  if (total > 0) parts[0] += ` (${Math.floor((100 * done) / total)}%)`;
  if (extra) parts.push(extra);
  // A rate (and an ETA from it) once there is enough time behind it to mean something.
  if (rate > 0 && elapsedSeconds >= 0.5) {
    parts.push(`${formatCount(rate, unit)}/s`);
    if (total > 0 && done < total) parts.push(`ETA ${formatDuration((total - done) / rate)}`);
  }
  return parts.join(', ');
}

export function progressLine(label: string, unit: string, stream: NodeJS.WriteStream = process.stderr): ProgressLine {
  const tty = Boolean(stream.isTTY);
  const interval = tty ? 200 : 1000;
  let started: number | null = null;
  let shownAt = 0;
  let last: { done: number; total: number; extra?: string } | null = null;
  let lastShown = true;
  let ended = false;
  const show = () => {
    if (!last || started === null) return;
    const text = progressText(label, unit, last.done, last.total, (performance.now() - started) / 1000, last.extra);
    stream.write(tty ? `\r${text}\u001b[K` : `${text}\n`);
    shownAt = performance.now();
    lastShown = true;
  };
  return {
    update(done, total, extra) {
      if (ended) return;
      started ??= performance.now();
      last = { done, total, extra };
      lastShown = false;
      if (performance.now() - shownAt >= interval || (total > 0 && done >= total)) show();
    },
    done() {
      if (ended || !last) return;
      ended = true;
      if (!lastShown) show();
      if (tty) stream.write('\n');
    },
  };
}
