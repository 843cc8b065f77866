import { createHash } from 'node:crypto';
import type { RecordToStore } from '../../functions/store/ports/records';
import { isMember, listRecordsOfGroup, placeMember } from './lists';
import { checkRecord } from './check';
import { describeProblem } from './problems';
import type { LoadScratch } from './scratch';
import type { RecordSource } from './source';

/** A record as the second pass writes it, with the digest of exactly what is written. */
export interface RecordToLoad {
  record: RecordToStore;
  /** Written on its genesis (GenesisToWrite.loadDigest): a load run again leaves a record alone whose stored digest is this one. */
  digest: string;
}

/**
 * How many records one batch of the writer takes (one lease, one signed checkpoint, one journal):
 * enough that the fixed cost of a batch is small beside its writes, few enough that its items
 * stay a few megabytes.
 */
export const CHUNK_RECORDS = 500;
/** ... and at most this many timeline entries (a long history counts for what it writes). */
const CHUNK_ENTRIES = 10_000;

/** Names the layout the digest describes: a change to what a load writes makes every record differ from what is stored. */
const DIGEST_FORMAT = 'svc.load.v1';

/** The digest of a record as the load is about to write it (before it is logged): its entries, views, heads and instructions. */
export function loadDigest(record: RecordToStore): string {
  return createHash('sha256').update(`${DIGEST_FORMAT}\n`).update(JSON.stringify(record)).digest('base64');
}

class SourceChangedError extends Error {
  override name = 'SourceChangedError';
}

/**
 * The second pass: the checked file read again, record by record, expanded into what is stored
 * (list members placed in their status lists from the positions the first pass kept), then the
 * status list records derived from them, in chunks of at most `limits`. A record that no longer
 * passes its checks means the file changed since the first pass: the load stops there.
 */
export async function* recordChunks(
  source: RecordSource,
  scratch: LoadScratch,
  limits: { records?: number; entries?: number; expectedRecords?: number } = {},
): AsyncIterable<RecordToLoad[]> {
  const maxRecords = limits.records ?? CHUNK_RECORDS;
  const maxEntries = limits.entries ?? CHUNK_ENTRIES;
  let chunk: RecordToStore[] = [];
  let entries = 0;
  const ready = async (): Promise<RecordToLoad[]> => {
    const members = chunk.filter(isMember);
    if (members.length > 0) {
      const positions = await scratch.positions(members.map((r) => r.reference));
      for (const record of members) placeMember(record, positions.get(record.reference));
    }
    const out = chunk.map((record) => ({ record, digest: loadDigest(record) }));
    chunk = [];
    entries = 0;
    return out;
  };
  const add = (record: RecordToStore) => {
    chunk.push(record);
    entries += record.entries.length;
    return chunk.length >= maxRecords || entries >= maxEntries;
  };
  const changed = (what: string) => new SourceChangedError(`${source.name} changed after it was checked (${what}); nothing more was written: check it and run the load again`);
  for await (const raw of source.records((problem) => {
    throw changed(describeProblem(problem));
  })) {
    if (limits.expectedRecords !== undefined && raw.index >= limits.expectedRecords) throw changed(`it holds more than the ${limits.expectedRecords} records checked`);
    const checked = checkRecord(raw);
    if (checked.problems) throw changed(describeProblem(checked.problems[0]));
    if (add(checked.record.record)) yield await ready();
  }
  for await (const { group, members } of scratch.memberGroups()) {
    for (const record of listRecordsOfGroup(group, members).records) if (add(record)) yield await ready();
  }
  if (chunk.length > 0) yield await ready();
}
