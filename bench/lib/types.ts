import type { LocalService } from '../../lib/local/service';

/** One measured figure. Units are spelled out (ms, KiB, req/s, x for ratios, requests/read). */
export interface BenchRow {
  metric: string;
  value: number;
  unit: string;
  note?: string;
}

/**
 * What `npm run bench` hands every section. Each section runs in its own Node.js process, so
 * nothing a section configures (environment, shared SDK clients, JIT state) reaches another.
 */
export interface BenchContext {
  /** Repository root. */
  root: string;
  /** The instant demo data is generated around, the same for every section of a run. */
  anchor: Date;
  /**
   * The local service (embedded store, demo data loaded through the loader, HTTP server on a free
   * port), started on first call and stopped after the section.
   */
  service(): Promise<LocalService>;
}

export interface BenchSection {
  name: string;
  run(ctx: BenchContext): Promise<BenchRow[]>;
  /** How long the section may run before it is stopped (default: bench/run.ts SECTION_TIMEOUT_MS). */
  timeoutMs?: number;
}
