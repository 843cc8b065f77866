import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { StoredTimelineEntry } from '../../domain/kinds/kind';
import type { GenesisToWrite, RecordGenesis } from '../ports/records';
import { canonicalInstant, GENESIS_SK, recordPk } from '../layout';

export type Item = Record<string, AttributeValue>;

/**
 * A record's items (layout.ts): its genesis and one self-sufficient item per timeline entry, the
 * entry, the view and the head as JSON text.
 */

/** One timeline entry item; `eventKey` names the event that made it (the sequencer's guard against integrating it twice). */
export function entryItem(reference: string, sk: string, e: { at: string; entry: unknown; view: unknown; head: unknown; eventKey?: string | null }): Item {
  const item: Item = {
    pk: { S: recordPk(reference) },
    sk: { S: sk },
    at: { S: canonicalInstant(e.at) },
    entry: { S: JSON.stringify(e.entry) },
    view: { S: JSON.stringify(e.view) },
    head: { S: JSON.stringify(e.head) },
  };
  if (e.eventKey) item.eventKey = { S: e.eventKey };
  return item;
}

/**
 * A record's genesis item: its kind and highest version; for a record the sequencer has changed
 * also `changedByEvents` (a load then keeps it as it is) and the events set aside for it (none:
 * left out); for a record a load wrote completely, the digest of what it wrote.
 */
export function genesisItem(reference: string, kind: string, genesis: GenesisToWrite): Item {
  const item: Item = { pk: { S: recordPk(reference) }, sk: { S: GENESIS_SK }, kind: { S: kind }, reference: { S: reference }, highestVersion: { N: String(genesis.highestVersion) } };
  if (genesis.events) item.changedByEvents = { BOOL: true };
  if (genesis.events && genesis.events.setAside.length > 0) item.setAside = { S: JSON.stringify(genesis.events.setAside) };
  if (genesis.loadDigest !== undefined) item.loadDigest = { S: genesis.loadDigest };
  return item;
}

export const entryOf = (item: Item): StoredTimelineEntry => ({
  id: item.sk!.S!,
  at: item.at!.S!,
  entry: JSON.parse(item.entry!.S!),
  view: JSON.parse(item.view!.S!),
  head: JSON.parse(item.head!.S!),
  eventKey: item.eventKey?.S ?? null,
});

export const genesisOf = (item: Item): RecordGenesis => ({
  kind: item.kind?.S ?? null,
  highestVersion: item.highestVersion?.N ? Number(item.highestVersion.N) : null,
  setAside: item.setAside?.S ? (JSON.parse(item.setAside.S) as string[]) : [],
  changedByEvents: item.changedByEvents?.BOOL === true,
  loadDigest: item.loadDigest?.S ?? null,
});
