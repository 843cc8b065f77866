import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { JSONParser } from '@streamparser/json';
import { NOT_A_RECORDS_DOCUMENT, type RecordProblem } from './problems';

/** One record as read from a source: its value, or why it could not be read. */
export interface RawRecord {
  /** Position among the records (0-based): what problems name. */
  index: number;
  /** Line of the file (1-based), for NDJSON. */
  line?: number;
  value?: unknown;
  /** Set when the record's text is not JSON (its line in NDJSON). */
  unreadable?: string;
}

/**
 * Where a load's records come from. Read twice (once to check, once to write), each time from
 * the start, one record at a time: a file is never held whole.
 */
export interface RecordSource {
  /** For messages. */
  readonly name: string;
  /** Size in bytes, when known (progress and ETA of the first pass). */
  readonly bytes: number | null;
  /**
   * The records in order. Problems with the source as a whole (not JSON, no records array) go to
   * `onProblem` with index -1, and reading stops. `onBytes` reports how far the reading got.
   */
  records(onProblem: (problem: RecordProblem) => void, onBytes?: (read: number) => void): AsyncIterable<RawRecord>;
}

const WHOLE_FILE = (message: string): RecordProblem => ({ index: -1, reference: null, field: 'records', message });
const NOT_A_DOCUMENT = 'the file must be NDJSON (.ndjson or .jsonl, one record per line) or a JSON object with a "records" array';

/** An in-memory document `{ "records": [...] }` (the demo data, the programmatic API). */
export function documentSource(document: unknown, name = 'document'): RecordSource {
  return {
    name,
    bytes: null,
    async *records(onProblem) {
      const records = (document as { records?: unknown })?.records;
      if (!Array.isArray(records)) {
        onProblem(WHOLE_FILE(NOT_A_RECORDS_DOCUMENT));
        return;
      }
      for (let index = 0; index < records.length; index++) yield { index, value: records[index] };
    },
  };
}

/** NDJSON for .ndjson and .jsonl, else a JSON document with a "records" array. */
export async function fileSource(file: string): Promise<RecordSource> {
  const { size } = await stat(file);
  const ndjson = ['.ndjson', '.jsonl'].includes(path.extname(file).toLowerCase());
  return { name: file, bytes: size, records: ndjson ? (_onProblem, onBytes) => ndjsonRecords(file, onBytes) : (onProblem, onBytes) => documentRecords(file, onProblem, onBytes) };
}

/**
 * One record per line, parsed with JSON.parse line by line (node:readline splits them), so a bad
 * line is one problem and every other line is still checked. Blank lines are skipped.
 */
async function* ndjsonRecords(file: string, onBytes?: (read: number) => void): AsyncIterable<RawRecord> {
  const stream = createReadStream(file);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let index = 0;
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (text.trim() === '') continue;
      onBytes?.(stream.bytesRead);
      let record: RawRecord;
      try {
        record = { index, line, value: JSON.parse(text) };
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        record = { index, line, unreadable: `line ${line} is not JSON: ${error.message}` };
      }
      index++;
      yield record;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}

/**
 * A JSON document `{ "records": [...] }`, streamed through @streamparser/json: each element of
 * `records` is handed over as soon as it is parsed and dropped from the parser's stack
 * (keepStack: false), so memory holds one record at a time, whatever the file's size. A syntax
 * error ends the reading (nothing after it can be told apart), with the offset where it was found.
 */
async function* documentRecords(file: string, onProblem: (problem: RecordProblem) => void, onBytes?: (read: number) => void): AsyncIterable<RawRecord> {
  const parser = new JSONParser({ paths: ['$.records.*'], keepStack: false });
  const parsed: unknown[] = [];
  let failure: Error | null = null;
  // The document's shape, from its tokens: an object whose "records" member is an array.
  const shape = new DocumentShape();
  parser.onToken = (token) => shape.see(token.token, token.value);
  parser.onValue = ({ value }) => void parsed.push(value);
  parser.onError = (error) => (failure ??= error);
  const stream = createReadStream(file);
  let index = 0;
  try {
    for await (const chunk of stream) {
      parser.write(chunk as Buffer);
      onBytes?.(stream.bytesRead);
      if (failure) break;
      if (shape.wrong) break;
      for (const value of parsed) yield { index: index++, value };
      parsed.length = 0;
    }
    // The parser ends by itself once the document's value is complete; ending it again is an error.
    if (!failure && !shape.wrong && !parser.isEnded) parser.end();
  } finally {
    stream.destroy();
  }
  if (failure) {
    onProblem(WHOLE_FILE(`the file is not valid JSON: ${(failure as Error).message}`));
    return;
  }
  if (shape.wrong || !shape.sawRecords) {
    onProblem(WHOLE_FILE(NOT_A_DOCUMENT));
    return;
  }
  for (const value of parsed) yield { index: index++, value };
}

/** Follows the document's tokens just enough to tell whether it is `{ ..., "records": [ ... ], ... }`. */
class DocumentShape {
  wrong = false;
  sawRecords = false;
  private depth = 0;
  private started = false;
  /** At depth 1: the last key read, until its value starts. */
  private key: string | null = null;
  private expectKey = false;

  see(token: number, value: unknown): void {
    if (this.wrong) return;
    // TokenType (@streamparser/json): 0 { 1 } 2 [ 3 ] 4 : 5 , 9 string
    if (!this.started) {
      this.started = true;
      if (token !== 0) this.wrong = true;
      this.depth = 1;
      this.expectKey = true;
      return;
    }
    if (this.depth === 1) {
      if (this.expectKey && token === 9) {
        this.key = value as string;
        this.expectKey = false;
        return;
      }
      if (token === 4) return;
      if (token === 5) {
        this.expectKey = true;
        return;
      }
      if (this.key === 'records') {
        if (token !== 2) this.wrong = true;
        else this.sawRecords = true;
      }
      this.key = null;
    }
    if (token === 0 || token === 2) this.depth++;
    else if (token === 1 || token === 3) this.depth--;
  }
}
