import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import {
  bitAt,
  bitstringOf,
  decodeStatusList,
  encodeStatusList,
  MIN_STATUS_LIST_ENTRIES,
  setIndexesOf,
  StatusListEncodingError,
} from '../../functions/domain/credentials/bitstring';

/** Decoding written here from the specification, sharing nothing with the service's decoder. */
function independentDecode(encodedList: string): Buffer {
  expect(encodedList[0]).toBe('u');
  return gunzipSync(Buffer.from(encodedList.slice(1), 'base64url'));
}
const independentBit = (bits: Buffer, index: number) => (bits[Math.floor(index / 8)] >> (7 - (index % 8))) & 1;

describe('Bitstring Status List encoding', () => {
  it('decodes the example list of the W3C Recommendation (Example 3) to 16 KB of zeros', () => {
    const example = 'uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA';
    const bits = decodeStatusList(example);
    expect(bits.length).toBe(16 * 1024);
    expect(setIndexesOf(bits)).toEqual([]);
  });

  it('encodes 131,072 entries as multibase base64url (prefix u, no padding) of GZIP bytes', () => {
    const encoded = encodeStatusList([5, 94_567]);
    expect(encoded).toMatch(/^u[A-Za-z0-9_-]+$/);
    const bits = independentDecode(encoded);
    expect(bits.length * 8).toBe(MIN_STATUS_LIST_ENTRIES);
    expect(bits.subarray(0, 2)).toEqual(Buffer.from([0x04, 0x00]));
    expect(independentBit(bits, 94_567)).toBe(1);
    expect(independentBit(bits, 94_566)).toBe(0);
    // A sparse list compresses to a few hundred bytes (the point of the format).
    expect(encoded.length).toBeLessThan(400);
  });

  it('puts index 0 at the left-most bit of the first byte and the last index at the right-most bit of the last byte', () => {
    const first = independentDecode(encodeStatusList([0]));
    expect(first[0]).toBe(0x80);
    const seventh = independentDecode(encodeStatusList([7]));
    expect(seventh[0]).toBe(0x01);
    const last = independentDecode(encodeStatusList([MIN_STATUS_LIST_ENTRIES - 1]));
    expect(last[last.length - 1]).toBe(0x01);
    expect(last.subarray(0, last.length - 1).every((b) => b === 0)).toBe(true);
  });

  it('round-trips any set of indexes, and bitAt agrees with an independent reading', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: MIN_STATUS_LIST_ENTRIES - 1 }), { maxLength: 60 }), (indexes) => {
        const encoded = encodeStatusList(indexes);
        const bits = decodeStatusList(encoded);
        expect(setIndexesOf(bits)).toEqual([...indexes].sort((a, b) => a - b));
        const raw = independentDecode(encoded);
        for (const i of indexes) expect(bitAt(bits, i)).toBe(independentBit(raw, i));
      }),
      { numRuns: 40 },
    );
  });

  it('is deterministic: the same bits give the same encodedList', () => {
    expect(encodeStatusList([3, 1, 2])).toBe(encodeStatusList([1, 2, 3]));
  });

  it('refuses what the Validate Algorithm refuses', () => {
    const good = encodeStatusList([1]);
    expect(() => decodeStatusList(good.slice(1))).toThrow(/multibase prefix/);
    expect(() => decodeStatusList(`${good}==`)).toThrow(/base64url/);
    expect(() => decodeStatusList(`u${Buffer.from('not gzip').toString('base64url')}`)).toThrow(/GZIP/);
    const short = `u${gzipSync(Buffer.alloc(1024)).toString('base64url')}`;
    expect(() => decodeStatusList(short)).toThrow(/herd privacy/);
  });

  it('refuses indexes outside the list and lists below the minimum', () => {
    expect(() => bitstringOf([MIN_STATUS_LIST_ENTRIES])).toThrow(StatusListEncodingError);
    expect(() => bitstringOf([-1])).toThrow(StatusListEncodingError);
    expect(() => bitstringOf([1.5])).toThrow(StatusListEncodingError);
    expect(() => bitstringOf([], 8 * 1024)).toThrow(/at least/);
    expect(() => bitAt(new Uint8Array(2), 16)).toThrow(StatusListEncodingError);
    expect(bitstringOf([], 2 * MIN_STATUS_LIST_ENTRIES).length).toBe(32 * 1024);
  });
});
