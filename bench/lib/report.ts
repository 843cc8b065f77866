import type { BenchRow } from './types';

export interface SectionResult {
  name: string;
  durationMs: number;
  rows: BenchRow[];
  error?: string;
}

function formatValue(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return value.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** One plain-text table of every section's rows (notes last, as they are long). */
export function renderTable(sections: readonly SectionResult[]): string {
  const lines: string[][] = [['section', 'metric', 'value', 'unit', 'note']];
  for (const s of sections) {
    for (const row of s.rows) lines.push([s.name, row.metric, formatValue(row.value), row.unit, row.note ?? '']);
    if (s.error) lines.push([s.name, 'FAILED', '', '', s.error]);
  }
  const widths = [0, 1, 2, 3].map((c) => Math.max(...lines.map((l) => l[c].length)));
  const render = (l: string[]) =>
    [l[0].padEnd(widths[0]), l[1].padEnd(widths[1]), l[2].padStart(widths[2]), l[3].padEnd(widths[3]), l[4]].join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [render(lines[0]), rule, ...lines.slice(1).map(render)].join('\n');
}
