import { canonicalBytes } from '#verify/checks/canonical';
import { TILES_FOLDER } from '#verify/node/tlog-tiles';
import { evidenceToCome } from '../store/checkpoint-to-come';
import type { Head } from '../domain/kinds/kind';
import type { LogResource } from '../domain/ledger/tiles';
import { STORED_CHUNKS_NAME, type JournalChunks, type StoredChunks } from '../store/ports/ledger';
import type { PendingStore, WaitingEvent } from '../store/ports/pending';
import type { RecordStore } from '../store/ports/records';
import { changesOf, entriesWrittenBy, newVersionsOf, planRecords, settlementsOf, type BatchSummary } from './batch-plan';
import { evidenceOfPart, type PartPlacement } from './growth';
import { tileStoreIn, writeLogResources, type TileStore } from './tile-store';

/**
 * A batch planned in parts (docs/ingress.md#one-log-many-writers): one log has one writer at a
 * time (the sequencer, holding its lease), but what a batch does to its records (reading them,
 * the rules, building and writing their items, settling the events) is most of its work, and the
 * records of different references are independent. So a large batch is cut by reference into
 * parts, each planned and written by a part writer of its own (another Lambda function on AWS),
 * while the sequencer does only what one log needs one writer for: it appends every part's new
 * versions to the log, signs one checkpoint, journals and publishes, and hands each part where its
 * new versions sit (PartWrite), from which the part writer makes their evidence itself. The part
 * writers also store the batch's new tiles and bundles of the tile log (TileWrite), so those bytes
 * leave the sequencer once. A credential's status lists follow in the sequencer itself, after the
 * parts (they gather what many credentials project onto them).
 *
 * A part names its new versions' evidence by their ordinal among them (EVIDENCE_TO_COME) until
 * they are placed; its writes go through the journal as the chunks it made (JournalChunks), so a
 * batch stopped after publishing its head is finished from them as any other.
 */

/** What a part writer is asked to plan: the events of some references. */
export interface PartRequest {
  /** Keys of events waiting, read strongly consistent by the part (those no longer waiting are passed over). */
  keys: string[];
  /** Events the sequencer read already, still waiting. */
  events: WaitingEvent[];
  /** The references their events name: their geneses are read with the events. */
  named: string[];
  /**
   * The name the part stores its chunks under itself (JournalChunks.storeChunks), so they go to
   * the journal, and back to the part writer, without passing through the sequencer. Without one,
   * the part hands its chunks back in its answer.
   */
  journal?: string;
}

/** A new version of a part, as the log takes it: its record, its number and its leaf's entry (RFC 8785 canonical JSON of its content). */
export interface PartLeaf {
  reference: string;
  version: number;
  entry: Uint8Array;
}

/** What a part writer planned. */
export interface PlannedPart {
  /** Its new versions, in the order they are logged (their ordinals). */
  leaves: PartLeaf[];
  /** Its writes (records and settled events) as journal chunks, each new version's evidence to come (none here when it stored them). */
  chunks: Uint8Array[];
  /** Where it stored its chunks, when the request named where (PartRequest.journal). */
  stored?: StoredChunks;
  /** What its changed records project onto the records derived from them (a credential's status lists). */
  projections: Array<{ reference: string; parts: unknown[]; from: string }>;
  summary: BatchSummary;
}

/**
 * What a part writer is asked to write once the batch's head is published: its chunks, and where
 * its new versions sit in the log with what their proofs need (growth.ts PartPlacement: its own
 * leaves and a few subtree hashes), from which it gives each its evidence itself: the sequencer
 * computes no proof, and sends a part what its proofs need, not the batch's every leaf.
 */
export interface PartWrite {
  /** Its chunks, or (`stored`) where it stored them when it was planned. */
  chunks: Uint8Array[];
  stored?: StoredChunks;
  placement: PartPlacement;
}

/**
 * What a part writer is asked to store before the batch's head is published: some of the new
 * tiles and bundles of the tile log (`dir`: the log's folder below its prefix, '' for the first
 * log), so the sequencer sends bytes once instead of making a request a tile.
 */
export interface TileWrite {
  dir: string;
  resources: LogResource[];
}

/**
 * What a part writer is asked to route: keys of waiting events whose references the sequencer does
 * not know (a look at the pending index lists keys only; a stream batch's images name them). The
 * part writer reads them and answers each one's reference (RoutedKeys), so a drained batch's
 * events do not pass through the sequencer to be routed (docs/capacity.md#one-log-many-writers).
 */
export interface RouteRequest {
  keys: string[];
}

/** Each of the keys asked that still waits, with the reference its event names; a key no longer waiting is left out. */
export interface RoutedKeys {
  routes: Array<[key: string, reference: string]>;
}

/** What a part writer works with: the records, the events, the journal's chunks, and the tile log (for TileWrite). */
export interface PartStores {
  records: RecordStore;
  pending: PendingStore;
  journal: JournalChunks;
  tiles?: TileStore;
}

/** Plans one part: its events read (what the sequencer did not read), their records integrated, every new version's evidence to come. */
export async function planPart(stores: PartStores, request: PartRequest): Promise<PlannedPart> {
  const [read, geneses] = await Promise.all([
    request.keys.length > 0 ? stores.pending.readEvents(request.keys) : [],
    request.named.length > 0 ? stores.records.readGeneses(request.named) : undefined,
  ]);
  const events = [...request.events, ...read.filter((e) => e.sequencing === 'PENDING')];
  const planned = await planRecords(stores, events, geneses ? { references: request.named, geneses } : undefined);
  const heads = newVersionsOf(planned.plans);
  // Placed once every part is planned (the sequencer appends them): the part writer puts their evidence in when it writes them.
  heads.forEach((head, ordinal) => (head.evidence = evidenceToCome(ordinal) as unknown as Head['evidence']));
  const { settlements, summary } = settlementsOf(events, planned);
  const records = changesOf(planned.plans);
  const chunks = records.length + settlements.length > 0 ? stores.journal.chunksOf({ records, settlements }) : [];
  const stored = request.journal !== undefined && chunks.length > 0 ? await stores.journal.storeChunks(request.journal, chunks) : undefined;
  return {
    leaves: heads.map((head) => ({ reference: head.reference, version: head.version, entry: canonicalBytes(head.content) })),
    ...(stored ? { chunks: [], stored } : { chunks }),
    projections: [...planned.projected].map(([reference, { parts, from }]) => ({ reference, parts, from })),
    summary: { ...summary, entriesWritten: entriesWrittenBy(records) },
  };
}

/** Writes one part once its batch's head is published: its chunks, each new version given its evidence. */
export async function writePart(stores: Pick<PartStores, 'journal'>, write: PartWrite): Promise<void> {
  // The proofs are made when the part has a new version to place (a part of observations alone has none).
  let placed: ReturnType<typeof evidenceOfPart> | undefined;
  const chunks = write.stored ? await stores.journal.readChunks(write.stored) : write.chunks;
  await stores.journal.writeChunks(chunks, (ordinal, version) => (placed ??= evidenceOfPart(write.placement))(write.placement.start + ordinal, version));
}

/** Stores a TileWrite: tiles and entry bundles only (a part writer never writes the log's checkpoint: the sequencer does, after its head). */
export async function storeTiles(stores: Pick<PartStores, 'tiles'>, write: TileWrite): Promise<void> {
  if (!stores.tiles) throw new Error('this part writer has no tile log to store tiles in');
  const notATile = write.resources.find((r) => !r.path.startsWith(TILES_FOLDER));
  if (notATile) throw new Error(`a part writer stores tiles and entry bundles only, not ${notATile.path}`);
  await writeLogResources(tileStoreIn(stores.tiles, write.dir), write.resources);
}

/** Routes keys: the events read (strongly consistent), those still waiting answered with their references. */
export async function routeKeys(stores: Pick<PartStores, 'pending'>, request: RouteRequest): Promise<RoutedKeys> {
  const events = request.keys.length > 0 ? await stores.pending.readEvents(request.keys) : [];
  return { routes: events.filter((e) => e.sequencing === 'PENDING').map((e): [string, string] => [e.key, e.event.reference]) };
}

/** Who plans and writes a batch's parts: the part writers (lambda-parts.ts on AWS), or this process (inProcessParts). */
export interface PartWriters {
  /** The parts a batch of `events` events is planned in: 1 plans it in the sequencer, as one. */
  partsFor(events: number): number;
  /** The events a batch takes at most (a full part for each writer). */
  readonly batchSize: number;
  plan(request: PartRequest): Promise<PlannedPart>;
  write(write: PartWrite): Promise<void>;
  storeTiles(write: TileWrite): Promise<void>;
  /** The references of the events of `keys` still waiting, by key. */
  route(keys: string[]): Promise<Map<string, string>>;
}

/**
 * The part a reference's events belong to among `count`: FNV-1a of the reference, so a record's
 * events always go to one part (the rules see them together) and references spread evenly.
 */
export function partOf(reference: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < reference.length; i++) {
    hash ^= reference.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % count;
}

/**
 * How many parts a batch of `events` is planned in: as many part writers as it fills at least
 * halfway, `eventsPerPart` being a full part, at most `maxParts` (1: in the sequencer). More parts
 * make a part's time shorter, and each costs the sequencer its invocations (three: to plan, to
 * store tiles, to write): parts of between a half and a whole `eventsPerPart` keep both small
 * (docs/capacity.md#one-log-many-writers).
 */
export const partsForEvents = (events: number, eventsPerPart: number, maxParts: number): number => Math.max(1, Math.min(maxParts, Math.floor((2 * events) / eventsPerPart)));

/**
 * Invocations and answers as they travel to a part writer and back: JSON, each field that holds
 * bytes (a part's chunks, a leaf's entry) as base64, so what runs in this process is exactly what a
 * Lambda is sent and answers (lambda-parts.ts, functions/handlers/sequence-part.ts). Field by field,
 * not a walk of the whole value: the sequencer encodes and decodes a batch's every leaf on its own time.
 */
const base64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const bytesOf = (text: string): Uint8Array => Buffer.from(text, 'base64');
type PlacementJson = Omit<PartPlacement, 'leaves' | 'frontier'> & { leaves: string; frontier: Array<[number, number, string]> };
const placementToJson = (p: PartPlacement): PlacementJson => ({ ...p, leaves: base64(p.leaves), frontier: p.frontier.map(([from, to, hash]) => [from, to, base64(hash)]) });
const placementFromJson = (p: PlacementJson): PartPlacement => ({ ...p, leaves: bytesOf(p.leaves), frontier: p.frontier.map(([from, to, hash]) => [from, to, bytesOf(hash)]) });

export function invocationToJson(invocation: PartInvocation): unknown {
  if ('plan' in invocation || 'route' in invocation) return invocation;
  if ('store' in invocation) return { store: { dir: invocation.store.dir, resources: invocation.store.resources.map((r) => ({ ...r, bytes: base64(r.bytes) })) } };
  const { chunks, stored, placement } = invocation.write;
  return { write: { chunks: chunks.map(base64), ...(stored ? { stored } : {}), placement: placementToJson(placement) } };
}
/**
 * An invocation from its JSON, its shape checked first: anything else is refused with a TypeError
 * that says what was wrong (the part writer's function then fails, and the sequencer's batch with
 * it), never taken in part. Only the sequencer may invoke a part writer; this keeps a mistake there
 * from becoming a half-read part.
 */
export function invocationFromJson(json: unknown): PartInvocation {
  const value = json as {
    plan?: PartRequest;
    write?: { chunks: string[]; stored?: StoredChunks; placement: PlacementJson };
    store?: { dir: string; resources: Array<Omit<LogResource, 'bytes'> & { bytes: string }> };
    route?: RouteRequest;
  };
  const kinds = isObject(value) ? (['plan', 'store', 'write', 'route'] as const).filter((k) => k in value) : [];
  if (kinds.length !== 1) throw new TypeError('a part writer is invoked with one of a part to plan, tiles to store, a part to write or keys to route');
  if (value.route !== undefined) return { route: { keys: checked(value.route, isRouteRequest, 'keys to route: keys').keys } };
  if (value.plan !== undefined) return { plan: checked(value.plan, isPartRequest, 'a part to plan: keys, events and named (and the name to store its chunks under)') };
  if (value.store !== undefined) {
    const store = checked(value.store, isTileWriteJson, 'tiles to store: dir and resources (path, bytes as base64, immutable)');
    return { store: { dir: store.dir, resources: store.resources.map((r) => ({ ...r, bytes: Buffer.from(r.bytes, 'base64') })) } };
  }
  const write = checked(value.write, isPartWriteJson, 'a part to write: chunks as base64 (or where they were stored) and a placement (origin, start, leaves, treeSize, frontier, checkpoint)');
  return { write: { chunks: write.chunks.map(bytesOf), ...(write.stored ? { stored: { name: write.stored.name, count: write.stored.count } } : {}), placement: placementFromJson(write.placement) } };
}

function checked<T>(value: unknown, is: (v: unknown) => v is T, what: string, whose = "a part writer's invocation"): T {
  if (!is(value)) throw new TypeError(`${whose} is not ${what}`);
  return value;
}
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const isIndex = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isBase64 = (v: unknown): v is string => typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v);
// A waiting event as the sequencer read it: its key, and the raw event and reference its part is routed and planned by.
const isWaitingEvent = (v: unknown): boolean => isObject(v) && typeof v.key === 'string' && isObject(v.event) && typeof v.event.raw === 'string' && typeof v.event.reference === 'string';
const isChunksName = (v: unknown): v is string => typeof v === 'string' && STORED_CHUNKS_NAME.test(v);
const isPartRequest = (v: unknown): v is PartRequest =>
  isObject(v) && isStrings(v.keys) && isStrings(v.named) && Array.isArray(v.events) && v.events.every(isWaitingEvent) && (v.journal === undefined || isChunksName(v.journal));
const isRouteRequest = (v: unknown): v is RouteRequest => isObject(v) && isStrings(v.keys) && Object.keys(v).length === 1;
const isRoutes = (v: unknown): v is RoutedKeys['routes'] => Array.isArray(v) && v.every((r) => Array.isArray(r) && r.length === 2 && typeof r[0] === 'string' && typeof r[1] === 'string');
const isStoredChunks = (v: unknown): v is StoredChunks => isObject(v) && isChunksName(v.name) && isIndex(v.count);
const isTileWriteJson = (v: unknown): v is { dir: string; resources: Array<Omit<LogResource, 'bytes'> & { bytes: string }> } =>
  isObject(v) && typeof v.dir === 'string' && Array.isArray(v.resources) && v.resources.every((r) => isObject(r) && typeof r.path === 'string' && isBase64(r.bytes) && typeof r.immutable === 'boolean');
const isPlacementJson = (v: unknown): v is PlacementJson =>
  isObject(v) &&
  typeof v.origin === 'string' &&
  isIndex(v.start) &&
  isBase64(v.leaves) &&
  isIndex(v.treeSize) &&
  typeof v.checkpoint === 'string' &&
  Array.isArray(v.frontier) &&
  v.frontier.every((f) => Array.isArray(f) && f.length === 3 && isIndex(f[0]) && isIndex(f[1]) && isBase64(f[2]));
const isPartWriteJson = (v: unknown): v is { chunks: string[]; stored?: StoredChunks; placement: PlacementJson } =>
  isObject(v) && Array.isArray(v.chunks) && v.chunks.every(isBase64) && (v.stored === undefined || (isStoredChunks(v.stored) && v.chunks.length === 0)) && isPlacementJson(v.placement);

/** A plan's leaves as they travel: their entries as one run of bytes and its cuts (one string to parse, not one a leaf). */
interface LeavesJson {
  references: string[];
  versions: number[];
  lengths: number[];
  entries: string;
}
export function answerToJson(answer: PartAnswer): unknown {
  if (!('leaves' in answer)) return answer;
  const leaves: LeavesJson = { references: answer.leaves.map((l) => l.reference), versions: answer.leaves.map((l) => l.version), lengths: answer.leaves.map((l) => l.entry.length), entries: Buffer.concat(answer.leaves.map((l) => l.entry)).toString('base64') };
  return { ...answer, leaves, chunks: answer.chunks.map(base64) };
}
/**
 * A part writer's answer from its JSON, its shape checked first, as an invocation is (invocationFromJson):
 * what is not exactly a planned part or `{ written: true }` is refused with a TypeError saying so,
 * and the batch fails before its head is published; never taken in part. The sequencer journals
 * what a plan answers, so a malformed answer must not reach the journal.
 */
export function answerFromJson(json: unknown): PartAnswer {
  if (isObject(json) && json.written === true && Object.keys(json).length === 1) return { written: true };
  if (isObject(json) && 'routes' in json && Object.keys(json).length === 1) return { routes: checked(json.routes, isRoutes, 'its routes: [key, reference] pairs', "a part writer's answer") };
  const value = checked(json, isPlannedJson, 'a planned part: leaves (references, versions, lengths, entries as base64), chunks as base64 or where they were stored, projections and a summary', "a part writer's answer");
  const entries = bytesOf(value.leaves.entries);
  if (value.leaves.lengths.reduce((n, l) => n + l, 0) !== entries.length) throw new TypeError("a part writer's answer is not a planned part: its leaves' lengths do not add up to its entries");
  let at = 0;
  const leaves = value.leaves.lengths.map((length, i): PartLeaf => ({ reference: value.leaves.references[i], version: value.leaves.versions[i], entry: entries.subarray(at, (at += length)) }));
  return { ...value, leaves, chunks: value.chunks.map(bytesOf) };
}

type PlannedJson = Omit<PlannedPart, 'leaves' | 'chunks'> & { leaves: LeavesJson; chunks: string[] };
const isNumbers = (v: unknown, is: (n: unknown) => boolean): v is number[] => Array.isArray(v) && v.every(is);
const isLeavesJson = (v: unknown): v is LeavesJson =>
  isObject(v) && isStrings(v.references) && isNumbers(v.versions, isIndex) && isNumbers(v.lengths, isIndex) && isBase64(v.entries) && v.versions.length === v.references.length && v.lengths.length === v.references.length;
const isSummary = (v: unknown): v is BatchSummary =>
  isObject(v) && (['deliveries', 'sequenced', 'setAside', 'retried', 'entriesWritten'] as const).every((k) => isIndex(v[k])) && isObject(v.reasons) && Object.values(v.reasons).every((r) => typeof r === 'string');
const isProjection = (v: unknown): boolean => isObject(v) && typeof v.reference === 'string' && Array.isArray(v.parts) && typeof v.from === 'string';
const isPlannedJson = (v: unknown): v is PlannedJson =>
  isObject(v) &&
  isLeavesJson(v.leaves) &&
  Array.isArray(v.chunks) &&
  v.chunks.every(isBase64) &&
  (v.stored === undefined || (isStoredChunks(v.stored) && v.chunks.length === 0)) &&
  Array.isArray(v.projections) &&
  v.projections.every(isProjection) &&
  isSummary(v.summary);

/** What a part writer is invoked with: a part to plan, tiles to store, a part to write, or keys to route. */
export type PartInvocation = { plan: PartRequest } | { write: PartWrite } | { store: TileWrite } | { route: RouteRequest };

/** What a part writer does when invoked (its Lambda handler's work, on the stores it is given). */
export type PartAnswer = PlannedPart | { written: true } | RoutedKeys;

export async function onPartInvocation(stores: PartStores, invocation: PartInvocation): Promise<PartAnswer> {
  if ('plan' in invocation) return planPart(stores, invocation.plan);
  if ('route' in invocation) return routeKeys(stores, invocation.route);
  if ('store' in invocation) await storeTiles(stores, invocation.store);
  else await writePart(stores, invocation.write);
  return { written: true };
}

/** Part writers in this process (tests, and the local service when asked): each invocation and answer through JSON text, as a Lambda's travel. */
export function inProcessParts(stores: PartStores, options: { eventsPerPart: number; maxParts: number }): PartWriters {
  const asText = (json: unknown): unknown => JSON.parse(JSON.stringify(json));
  return partWriters(options, async (invocation) => asText(answerToJson(await onPartInvocation(stores, invocationFromJson(asText(invocation))))));
}

/** A part writer's answer to tiles to store or a part to write: `{ written: true }`, nothing else. */
function written(json: unknown): void {
  if (!('written' in answerFromJson(json))) throw new TypeError("a part writer's answer to tiles to store or a part to write is not { written: true }");
}

/**
 * Part writers reached through `invoke`, which sends an invocation as JSON (invocationToJson) and
 * gives back the part writer's answer as JSON (answerToJson); `eventsPerPart` a part, at most
 * `maxParts` parts a batch.
 */
export function partWriters(options: { eventsPerPart: number; maxParts: number }, invoke: (invocation: unknown) => Promise<unknown>): PartWriters {
  return {
    partsFor: (events) => partsForEvents(events, options.eventsPerPart, options.maxParts),
    batchSize: options.eventsPerPart * options.maxParts,
    plan: async (request) => {
      const planned = answerFromJson(await invoke(invocationToJson({ plan: request })));
      if (!('leaves' in planned)) throw new TypeError("a part writer's answer to a part to plan is not a planned part");
      // Only the chunks it was asked to store: the journal will name them, and the finishing writer read them.
      if (planned.stored && planned.stored.name !== request.journal) throw new TypeError(`a part writer stored its chunks under ${JSON.stringify(planned.stored.name)}, not the name it was given`);
      return planned;
    },
    write: async (write) => written(await invoke(invocationToJson({ write }))),
    storeTiles: async (store) => written(await invoke(invocationToJson({ store }))),
    route: async (keys) => {
      const answer = answerFromJson(await invoke(invocationToJson({ route: { keys } })));
      if (!('routes' in answer)) throw new TypeError("a part writer's answer to keys to route is not its routes");
      const asked = new Set(keys);
      // Only keys it was asked: a route for another would send an event to a part unasked.
      if (answer.routes.some(([key]) => !asked.has(key))) throw new TypeError("a part writer's answer to keys to route routes a key it was not asked");
      return new Map(answer.routes);
    },
  };
}
