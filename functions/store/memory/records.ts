import type { StoredTimelineEntry } from '../../domain/kinds/kind';
import { canonicalInstant, positionAfter, sortKeysOf } from '../layout';
import type { RecordChange, RecordGenesis, RecordStore, RecordWindow, RecordWriteOptions, StoredEntry, StoredTimeline } from '../ports/records';
import { WindowEntry } from '../window-entry';
import { waitsForEvidence } from '../checkpoint-to-come';

/** An entry as the memory keeps it: the parts as JSON text, read back as fresh objects, as a table gives them. */
interface KeptEntry {
  id: string;
  at: string;
  entry: string;
  view: string;
  head: string;
  eventKey: string | null;
}

interface KeptRecord {
  genesis: (RecordGenesis & { kind: string }) | null;
  /** By id; ids sort in timeline order (layout.ts entrySk). */
  entries: Map<string, KeptEntry>;
}

/** A head's version number (the table keeps one head per version: functions/store/layout.ts). */
const versionOf = (headText: string): number => (JSON.parse(headText) as { version: number }).version;

const inOrder = (record: KeptRecord): KeptEntry[] => [...record.entries.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
const timelineEntry = (e: KeptEntry): StoredTimelineEntry => ({ id: e.id, at: e.at, entry: JSON.parse(e.entry), view: JSON.parse(e.view), head: JSON.parse(e.head), eventKey: e.eventKey });

/**
 * The record store in this process's memory (tests, and whatever runs without a table): the same
 * guarantees as the table (ports/records.ts), every read strongly consistent. Entries are kept as
 * the JSON a table keeps, so nothing a writer changes after writing reaches the store.
 */
export class MemoryRecordStore implements RecordStore {
  private readonly records = new Map<string, KeptRecord>();
  /** Set once a load has marked the schema. */
  schemaMarked = false;

  private recordOf(reference: string): KeptRecord {
    let record = this.records.get(reference);
    if (!record) this.records.set(reference, (record = { genesis: null, entries: new Map() }));
    return record;
  }

  async readWindow<E, V, H>(reference: string, at: string, limit: number): Promise<RecordWindow<E, V, H>> {
    const record = this.records.get(reference);
    const cut = Date.parse(canonicalInstant(at));
    const entries = record ? inOrder(record).filter((e) => Date.parse(e.at) <= cut).reverse() : [];
    if (!record || (!record.genesis && entries.length === 0)) return { exists: false, kind: null, entries: [], more: false };
    // As the table: one head read, the newest entry's version's (a version's head is stored once).
    const newestVersion = entries[0] ? versionOf(entries[0].head) : null;
    const window: StoredEntry<E, V, H>[] = entries.slice(0, limit).map((e) => new WindowEntry<E, V, H>(e.at, JSON.parse(e.entry) as E, e.view, versionOf(e.head) === newestVersion ? e.head : undefined));
    const kind = record.genesis?.kind ?? (window[0] ? ((window[0].head as { kind?: string }).kind ?? null) : null);
    return { exists: true, kind, entries: window, more: entries.length > limit };
  }

  async readGeneses(references: readonly string[]): Promise<Map<string, RecordGenesis>> {
    return new Map(references.flatMap((r) => {
      const genesis = this.records.get(r)?.genesis;
      return genesis ? [[r, structuredClone(genesis)] as const] : [];
    }));
  }

  async readTimelines(requests: readonly { reference: string; from: string | null }[]): Promise<Map<string, StoredTimeline>> {
    const out = new Map<string, StoredTimeline>();
    for (const { reference, from } of requests) {
      const record = this.records.get(reference);
      const all = record ? inOrder(record).map(timelineEntry) : [];
      const boundary = from === null ? null : Date.parse(canonicalInstant(from));
      const before = boundary === null ? [] : all.filter((e) => Date.parse(e.at) < boundary);
      const entries = boundary === null ? all : all.filter((e) => Date.parse(e.at) >= boundary);
      const prior = before.length > 0 ? before[before.length - 1] : null;
      if (!prior && entries.length === 0) continue;
      out.set(reference, { before: prior, entries, after: positionAfter(prior ? [prior, ...entries] : entries) });
    }
    return out;
  }

  async write(changes: readonly RecordChange[], options: RecordWriteOptions = {}): Promise<void> {
    // The entries of every change first, then the geneses, as the table is written.
    for (const change of options.part === 'geneses' ? [] : changes) {
      const record = this.recordOf(change.reference);
      const ids = sortKeysOf(change.entries, change.after);
      const heads = new Map<number, string>();
      for (const e of change.entries) {
        const text = JSON.stringify(e.head);
        // As the table refuses one (head-text.ts).
        if (waitsForEvidence(text)) throw new Error(`${change.reference}: a head whose evidence waits for its checkpoint or its place in the log is not stored`);
        if ((heads.get(versionOf(text)) ?? text) !== text) throw new Error(`${change.reference}: version ${versionOf(text)} is given two different heads`);
        heads.set(versionOf(text), text);
      }
      change.entries.forEach((e, i) => {
        record.entries.set(ids[i], { id: ids[i], at: canonicalInstant(e.at), entry: JSON.stringify(e.entry), view: JSON.stringify(e.view), head: JSON.stringify(e.head), eventKey: e.eventKey ?? null });
      });
    }
    for (const change of options.part === 'timelines' ? [] : changes) {
      if (!change.genesis) continue;
      const { highestVersion, events, loadDigest } = change.genesis;
      this.recordOf(change.reference).genesis = { kind: change.kind, highestVersion, setAside: [...(events?.setAside ?? [])], changedByEvents: events !== undefined, loadDigest: loadDigest ?? null };
    }
  }

  async markSchema(): Promise<void> {
    this.schemaMarked = true;
  }

}
