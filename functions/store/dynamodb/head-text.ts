import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { HEAD_WORDS_V1 } from '../../domain/kinds/head-words';
import { textWithCheckpoint, textWithPlacedEvidence, waitsForEvidence, type PlacedEvidence } from '../checkpoint-to-come';

/**
 * How a version's head is kept in its item: its JSON text deflated with a preset dictionary.
 *
 * A head (its content, its ledger evidence, what it restricts) is about 1.1 to 1.7 KB of JSON, so
 * its item took two write units (one per KB: docs/capacity.md). Most of that text is said by every
 * head in the same words: the keys, the evidence's format, the checkpoint's shape, the log's origin
 * (three times). Deflate with those words as its dictionary (RFC 1951 with a preset dictionary, as
 * zlib offers it) keeps about half: a state change's head item, its event's identity included, is
 * one write unit while the log is young (up to about 2,000 entries) and two up to 2^40 entries,
 * where its text took two, and three past about 2^19 entries. Reads inflate one head each (tens of microseconds).
 *
 * Old items keep their text in `head` (a string) and are read as they are: nothing to migrate.
 */
export const HEAD_TEXT = 'head';
/** The attribute of a head deflated with HEAD_WORDS_V1 as its dictionary. A new dictionary needs a name of its own: items written with this one stay readable only with it. */
export const HEAD_DEFLATED_V1 = 'headZ1';

/** node:zlib when a head is first written or read (process.getBuiltinModule: not at a function's start). */
const zlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');
let dictionary: Buffer | undefined;
const dictionaryV1 = (): Buffer => (dictionary ??= Buffer.from(HEAD_WORDS_V1, 'utf8'));

/**
 * The head's attribute: its text deflated, or the text itself where deflating would not make it
 * smaller. A head whose evidence still waits for its batch's checkpoint (checkpoint-to-come.ts) is
 * never stored: that is a writer's error, refused here.
 */
export function headAttribute(headText: string): Record<string, AttributeValue> {
  if (waitsForEvidence(headText)) throw new Error('a head whose evidence waits for its checkpoint or its place in the log is not stored (the batch writes it once both are known)');
  const deflated = zlib().deflateRawSync(headText, { level: 9, dictionary: dictionaryV1() });
  return deflated.length < Buffer.byteLength(headText, 'utf8') ? { [HEAD_DEFLATED_V1]: { B: deflated } } : { [HEAD_TEXT]: { S: headText } };
}

/** The head's text from its item, whichever way it was kept; null on an item that keeps none. */
export function headTextOf(item: Record<string, AttributeValue>): string | null {
  const text = item[HEAD_TEXT]?.S;
  if (text !== undefined) return text;
  const deflated = item[HEAD_DEFLATED_V1]?.B;
  return deflated === undefined ? null : zlib().inflateRawSync(deflated, { dictionary: dictionaryV1() }).toString('utf8');
}

/**
 * A batch's journal (journal.ts) keeps the items it will write in gzip-compressed chunks: there,
 * heads compress best as text, together (what one head says, the next says again). A journaled
 * head item holds its text under JOURNALED_HEAD_TEXT, and comes out as the item the store writes.
 */
const JOURNALED_HEAD_TEXT = 'headJ';
/** Where a head item goes: the table (deflated) or a batch's journal (text). */
export type HeadItemFor = 'table' | 'journal';
export const headAttributeFor = (where: HeadItemFor, headText: string): Record<string, AttributeValue> =>
  where === 'table' ? headAttribute(headText) : { [JOURNALED_HEAD_TEXT]: { S: headText } };
/**
 * The item the store writes for a journaled one; a head's evidence given `checkpoint` (the one its
 * batch published) where it names CHECKPOINT_TO_COME, and `placed` where its place in the log was
 * to come (a part of a batch: checkpoint-to-come.ts).
 */
export function storedHeadItem(item: Record<string, AttributeValue>, checkpoint: string | null, placed?: PlacedEvidence): Record<string, AttributeValue> {
  const text = item[JOURNALED_HEAD_TEXT]?.S;
  if (text === undefined) return item;
  const { [JOURNALED_HEAD_TEXT]: _text, ...rest } = item;
  const withPlace = placed ? textWithPlacedEvidence(text, placed) : text;
  return { ...rest, ...headAttribute(checkpoint === null ? withPlace : textWithCheckpoint(withPlace, checkpoint)) };
}

/** The dictionary's bytes, for the test that holds it unchanged. */
export const headDictionaryV1 = (): Buffer => Buffer.from(dictionaryV1());
