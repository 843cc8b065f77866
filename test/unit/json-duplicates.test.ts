import fc from 'fast-check';
import { duplicateMemberName, JsonInputError, parseJsonBody } from '../../functions/domain/json-input';

/**
 * The member-name scan beside JSON.parse (functions/domain/json-input.ts), held to an oracle on
 * seeded random documents: JSON texts written from trees whose objects are lists of members, so
 * a name may repeat, with names escaped in random ways and random whitespace. Where no name
 * repeats, the scan finds nothing and the body reads as JSON.parse reads it; where one does, the
 * scan names the first repeated member in document order, whatever its spelling.
 */
type Tree = { object: [string, Tree][] } | { array: Tree[] } | { scalar: string | number | boolean | null };

const names = fc.constantFrom('a', 'b', 'state', 'data', '\u00e9', 'x"y', 'a\\b', '__proto__', 'constructor', '\u{1F600}', '');
const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)).map((scalar) => ({ scalar }) as Tree),
    fc.array(fc.tuple(names, tie('tree')), { maxLength: 5 }).map((object) => ({ object }) as Tree),
    fc.array(tie('tree'), { maxLength: 4 }).map((array) => ({ array }) as Tree),
  ),
})).tree;

/** A name as JSON text, each character written plainly or as \uXXXX (escapes chosen by `spell`). */
function nameText(name: string, spell: boolean[]): string {
  const plain = JSON.stringify(name);
  if (!spell.some(Boolean)) return plain;
  let out = '"';
  [...name].forEach((char, i) => {
    if (spell[i % spell.length]) out += [...char].map((unit) => unit.split('').map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')).join('');
    else out += JSON.stringify(char).slice(1, -1);
  });
  return `${out}"`;
}

function textOf(node: Tree, spell: boolean[], space: string): string {
  if ('scalar' in node) return JSON.stringify(node.scalar);
  if ('array' in node) return `[${space}${node.array.map((item) => textOf(item, spell, space)).join(`,${space}`)}${space}]`;
  return `{${space}${node.object.map(([name, value]) => `${nameText(name, spell)}${space}:${space}${textOf(value, spell, space)}`).join(`${space},`)}${space}}`;
}

/** What JSON.parse makes of a tree without repeated names. */
function valueOf(node: Tree): unknown {
  // As its text reads back: JSON.stringify writes -0 as 0.
  if ('scalar' in node) return JSON.parse(JSON.stringify(node.scalar)) as unknown;
  if ('array' in node) return node.array.map(valueOf);
  const out: Record<string, unknown> = {};
  for (const [name, value] of node.object) Object.defineProperty(out, name, { value: valueOf(value), enumerable: true, writable: true, configurable: true });
  return out;
}

/** The oracle: the path of the first member whose name its object already had, in document order. */
function firstRepeat(node: Tree, path: (string | number)[] = []): (string | number)[] | null {
  if ('scalar' in node) return null;
  if ('array' in node) {
    for (const [i, item] of node.array.entries()) {
      const found = firstRepeat(item, [...path, i]);
      if (found) return found;
    }
    return null;
  }
  const seen = new Set<string>();
  for (const [name, value] of node.object) {
    if (seen.has(name)) return [...path, name];
    seen.add(name);
    const found = firstRepeat(value, [...path, name]);
    if (found) return found;
  }
  return null;
}

const spelling = fc.array(fc.boolean(), { minLength: 1, maxLength: 3 });
const spaces = fc.constantFrom('', ' ', '\n  ', '\t', '\r\n');

describe('member names given twice (I-JSON)', () => {
  test('on random documents the scan finds exactly the first repeated name, and reads the others as JSON.parse does', () => {
    let repeated = 0;
    fc.assert(
      fc.property(tree, spelling, spaces, (node, spell, space) => {
        const text = textOf(node, spell, space);
        const expected = firstRepeat(node);
        expect(duplicateMemberName(text)).toEqual(expected);
        if (expected) repeated++;
        else expect(JSON.parse(text)).toEqual(valueOf(node));
      }),
      { seed: 20261126, numRuns: 3000 },
    );
    // The generator must exercise both sides.
    expect(repeated).toBeGreaterThan(100);
  });

  test('on documents JSON.stringify writes (which never repeats a name) the scan finds nothing', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        expect(duplicateMemberName(JSON.stringify(value, null, indent))).toBeNull();
      }),
      { seed: 7493, numRuns: 2000 },
    );
  });

  test.each([
    ['{"state":"SHIPPED","state":"RETURNED"}', 'state'],
    ['{"data":{"state":"A","\\u0073tate":"B"}}', 'data.state'],
    ['{"rules":[{"id":1},{"id":2,"when":{},"id":3}]}', 'rules[1].id'],
    ['{"a":"{\\"a\\":1,\\"a\\":2}","b":1}', null],
    ['{"a":{"b":1},"c":{"b":2}}', null],
  ])('%s: %s', (text, field) => {
    const read = () => parseJsonBody(text, { t: 'unknown' }, { optional: false });
    if (field === null) {
      expect(read()).toEqual(JSON.parse(text));
      return;
    }
    expect(read).toThrow(JsonInputError);
    try {
      read();
    } catch (error) {
      expect((error as JsonInputError).issues).toEqual([expect.objectContaining({ field, detail: expect.stringContaining('is given more than once in its object') })]);
    }
  });
});
