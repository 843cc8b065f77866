/**
 * DynamoDB's documented sizing rules, applied to items in the DynamoDB JSON form (the wire form of
 * the JSON protocol: `{ "S": "..." }`, `{ "N": "12" }`, ...). Pure functions: the accounting proxy
 * (aws-proxy.ts) gives them the items a real request read or wrote, the tests give them AWS's
 * worked examples.
 *
 * Sources (AWS, Amazon DynamoDB Developer Guide):
 *  - item sizes: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
 *    a string is its name's UTF-8 bytes plus its UTF-8 bytes; a number its name plus about one byte
 *    per two significant digits plus one; a binary its name plus its raw bytes; a Boolean or null its
 *    name plus one byte; a List or Map its name, 3 bytes, and one byte per element on top of the
 *    elements' sizes.
 *  - read and write units: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
 *    a read unit per 4 KB (half for an eventually consistent read, twice for a transactional one), a
 *    write unit per 1 KB (twice for a transactional one); GetItem rounds the item, BatchGetItem and
 *    BatchWriteItem each item, Query and Scan the total of the items they read (evaluated, not
 *    returned: a projection or a filter reduces nothing); PutItem and UpdateItem are charged on the
 *    larger of the item before and after, DeleteItem on the deleted item; a read of an item that
 *    does not exist still costs the minimum; a failed conditional write still costs the new item's
 *    units when an item is there, one unit when none is.
 *  - index writes: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations
 *    a write that puts an item into a global secondary index costs one write there, one that removes
 *    it one, one that changes its index key two (delete and put), one that changes only projected
 *    attributes one; each by the size of the index entry (the table's keys, the index's keys and the
 *    projected attributes); a write that leaves the index entry as it was costs the index nothing.
 *  - partition limits: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html
 *    (each partition serves at most 3,000 read units and 1,000 write units a second) and
 *    https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html
 *  - table quotas: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
 *    (and https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode-max-throughput.html):
 *    by default a table takes at most 40,000 read and 40,000 write units a second, on demand or
 *    provisioned; a provisioned table and all its global secondary indexes together stay within the
 *    account's 80,000 of each in a Region. Every one of these is adjustable (a Service Quotas request).
 */

export interface AttributeValue {
  S?: string;
  N?: string;
  B?: string;
  BOOL?: boolean;
  NULL?: boolean;
  SS?: string[];
  NS?: string[];
  BS?: string[];
  L?: AttributeValue[];
  M?: Record<string, AttributeValue>;
}
export type Item = Record<string, AttributeValue>;

export type ReadConsistency = 'eventual' | 'strong' | 'transactional';

export const READ_UNIT_BYTES = 4096;
export const WRITE_UNIT_BYTES = 1024;
/** The most read and write units one partition (of a table or of an index) serves each second. */
export const PARTITION_READ_UNITS_PER_SECOND = 3000;
export const PARTITION_WRITE_UNITS_PER_SECOND = 1000;
/** The default table-level quota, read and write units a second (each adjustable; see the sources above). */
export const TABLE_QUOTA_UNITS_PER_SECOND = 40_000;
/** The default account-level quota of provisioned capacity in a Region: a provisioned table and its indexes together. */
export const ACCOUNT_PROVISIONED_QUOTA_UNITS_PER_SECOND = 80_000;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * A number's size: one byte per two significant digits, plus one. Leading and trailing zeroes are
 * not significant ("Leading and trailing zeroes are trimmed"), nor are the sign, the decimal point
 * or an exponent. AWS calls the rule approximate: DynamoDB's encoding can take one byte more when
 * the digits do not align on a pair (dynalite models that byte; see docs/capacity.md).
 */
export function numberSize(value: string): number {
  const mantissa = value.trim().replace(/^[+-]/, '').replace(/[eE][+-]?\d+$/, '');
  const digits = mantissa.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  if (digits.length === 0) return 1;
  return Math.ceil(digits.length / 2) + 1;
}

/** The size of a value, without its attribute name. */
export function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return Buffer.from(value.B, 'base64').length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((n, s) => n + utf8(s), 0);
  if (value.NS) return value.NS.reduce((n, s) => n + numberSize(s), 0);
  if (value.BS) return value.BS.reduce((n, b) => n + Buffer.from(b, 'base64').length, 0);
  if (value.L) return 3 + value.L.reduce((n, element) => n + 1 + valueSize(element), 0);
  if (value.M) return 3 + Object.entries(value.M).reduce((n, [name, element]) => n + 1 + utf8(name) + valueSize(element), 0);
  throw new Error(`not a DynamoDB attribute value: ${JSON.stringify(value)}`);
}

/** An item's size: the lengths of its attribute names and values. */
export function itemSize(item: Item): number {
  return Object.entries(item).reduce((n, [name, value]) => n + utf8(name) + valueSize(value), 0);
}

const consistencyFactor: Record<ReadConsistency, number> = { eventual: 0.5, strong: 1, transactional: 2 };

/** Read units for `bytes` read as one operation (one item of GetItem, or all items a Query read); at least the minimum. */
export function readUnits(bytes: number, consistency: ReadConsistency): number {
  return Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES)) * consistencyFactor[consistency];
}

/** Write units for writing (or deleting) an item of `bytes`; at least one. */
export function writeUnits(bytes: number, transactional = false): number {
  return Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES)) * (transactional ? 2 : 1);
}

/** A table's key schema and its global secondary indexes, as DescribeTable gives them. */
export interface TableSchema {
  name: string;
  partitionKey: string;
  sortKey?: string;
  indexes: IndexSchema[];
}

export interface IndexSchema {
  name: string;
  partitionKey: string;
  sortKey?: string;
  projection: { type: 'KEYS_ONLY' } | { type: 'ALL' } | { type: 'INCLUDE'; attributes: string[] };
}

/** Where units are consumed: a table's or an index's partition, by its partition key value. */
export interface Charge {
  table: string;
  /** The index whose partition pays (absent: the table's). */
  index?: string;
  /** The partition key value (a string; a number as written; a binary in base64). */
  partitionKey: string;
  /** The item's sort key value, when the charge concerns one item (reads of a Query do not). */
  sortKey?: string;
  readUnits: number;
  writeUnits: number;
  /** For a read: how many items it read (0: it found none and pays the minimum). */
  itemsRead?: number;
  /** For an index write: what it did to the index entry. */
  indexWrite?: 'insert' | 'delete' | 'update';
}

export function keyValue(value: AttributeValue | undefined): string | undefined {
  return value?.S ?? value?.N ?? value?.B;
}

/** The index entry an item has in `index`: undefined when the item lacks one of the index's keys (a sparse index). */
export function indexEntry(item: Item | undefined, index: IndexSchema, table: TableSchema): Item | undefined {
  if (!item || item[index.partitionKey] === undefined || (index.sortKey && item[index.sortKey] === undefined)) return undefined;
  if (index.projection.type === 'ALL') return { ...item };
  const names = new Set([table.partitionKey, table.sortKey, index.partitionKey, index.sortKey, ...(index.projection.type === 'INCLUDE' ? index.projection.attributes : [])]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => names.has(name)));
}

const sameItem = (a: Item, b: Item): boolean => {
  const canonical = (item: Item) => JSON.stringify(Object.keys(item).sort().map((k) => [k, item[k]]));
  return canonical(a) === canonical(b);
};

/** The index writes a table write causes in one index (none, one, or a delete and a put). */
export function indexWrites(before: Item | undefined, after: Item | undefined, index: IndexSchema, table: TableSchema, transactional = false): Charge[] {
  const old = indexEntry(before, index, table);
  const next = indexEntry(after, index, table);
  const charge = (entry: Item, kind: Charge['indexWrite'], bytes = itemSize(entry)): Charge => ({
    table: table.name,
    index: index.name,
    partitionKey: keyValue(entry[index.partitionKey])!,
    readUnits: 0,
    writeUnits: writeUnits(bytes, transactional),
    indexWrite: kind,
  });
  if (!old && !next) return [];
  if (!old) return [charge(next!, 'insert')];
  if (!next) return [charge(old, 'delete')];
  const keyOf = (entry: Item) => JSON.stringify([entry[index.partitionKey], index.sortKey ? entry[index.sortKey] : null]);
  if (keyOf(old) !== keyOf(next)) return [charge(old, 'delete'), charge(next, 'insert')];
  if (sameItem(old, next)) return [];
  return [charge(next, 'update', Math.max(itemSize(old), itemSize(next)))];
}

const tableCharge = (table: TableSchema, item: Item, units: { read?: number; write?: number }): Charge => ({
  table: table.name,
  partitionKey: keyValue(item[table.partitionKey])!,
  ...(table.sortKey && item[table.sortKey] ? { sortKey: keyValue(item[table.sortKey]) } : {}),
  readUnits: units.read ?? 0,
  writeUnits: units.write ?? 0,
});

/** GetItem (or one key of BatchGetItem / TransactGetItems): the whole item, whatever is projected; the minimum when it does not exist. */
export function priceItemRead(table: TableSchema, key: Item, item: Item | undefined, consistency: ReadConsistency): Charge {
  return { ...tableCharge(table, key, { read: readUnits(item ? itemSize(item) : 0, consistency) }), itemsRead: item ? 1 : 0 };
}

/**
 * Query or Scan: the items it read (evaluated before any filter, up to its Limit and 1 MB), summed
 * and rounded once. On an index, the items are its entries and its partition pays.
 */
export function priceItemsRead(table: TableSchema, partitionKey: string, items: readonly Item[], consistency: ReadConsistency, index?: string): Charge {
  return { table: table.name, ...(index ? { index } : {}), partitionKey, readUnits: readUnits(items.reduce((n, item) => n + itemSize(item), 0), consistency), writeUnits: 0, itemsRead: items.length };
}

/**
 * A write that succeeded (PutItem, UpdateItem, DeleteItem, one item of BatchWriteItem or of a
 * transaction): the larger of the item before and after on the table, and the writes it causes in
 * each index.
 */
export function priceItemWrite(table: TableSchema, before: Item | undefined, after: Item | undefined, transactional = false): Charge[] {
  const item = after ?? before;
  if (!item) throw new Error('a write needs the item before or after it');
  const bytes = Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0);
  return [tableCharge(table, item, { write: writeUnits(bytes, transactional) }), ...table.indexes.flatMap((index) => indexWrites(before, after, index, table, transactional))];
}

/**
 * A conditional write whose condition failed: nothing is written (no index changes), yet the table
 * is charged the units of the new item when an item exists under the key, one unit when none does.
 * For an update or a delete (no new item in the request) the existing item stands for it.
 */
export function priceFailedConditionalWrite(table: TableSchema, key: Item, existing: Item | undefined, requested: Item | undefined, transactional = false): Charge {
  const units = existing ? writeUnits(itemSize(requested ?? existing), transactional) : writeUnits(0, transactional);
  return tableCharge(table, key, { write: units });
}

/** The leading characters of a key up to and including its first '#' (its class: R#, P#, L#), or the key itself when it has none. */
export function keyClass(key: string): string {
  const hash = key.indexOf('#');
  return hash >= 0 ? key.slice(0, hash + 1) : key;
}
