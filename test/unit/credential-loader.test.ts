import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { DEMO_CREDENTIAL_RESTRICTED_VALUES, DEMO_CREDENTIALS, DEMO_STATUS_LISTS, demoCredentialRecords } from '../../fixtures/demo-credentials';
import type { CredentialContent, StatusListContent } from '../../functions/domain/credentials/model';
import type { RecordToStore } from '../../functions/store/ports/records';
import { withDerivedRecords } from '../../lib/loader/derive';
import { InvalidRecordsError, validateRecords } from '../../lib/loader/load';

const ANCHOR = new Date('2026-11-01T12:00:00Z');
const DAY = 86_400_000;
const at = (days: number) => new Date(ANCHOR.getTime() + days * DAY).toISOString();

type Input = Record<string, any>;
const demo = () => demoCredentialRecords(ANCHOR) as Input[];
const byRef = (ref: string) => structuredClone(demo().find((r) => r.reference === ref)!);

function credential(reference: string, issuedDaysAgo: number, extra: Input = {}): Input {
  return {
    ...byRef(DEMO_CREDENTIALS.active),
    reference,
    validFrom: at(-issuedDaysAgo),
    history: [{ type: 'ISSUED', at: at(-issuedDaysAgo) }],
    ...extra,
  };
}

const load = (records: Input[]) => withDerivedRecords(validateRecords({ records }));

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRecordsError);
    return (error as InvalidRecordsError).problems.map((p) => `${p.index}:${p.field}:${p.message}`);
  }
  throw new Error('accepted');
}

const contentOf = (record: RecordToStore) => (record.entries.at(-1)!.head as { content: CredentialContent }).content;
const indexOf = (records: RecordToStore[], ref: string) => contentOf(records.find((r) => r.reference === ref)!).statusSlots[0].statusListIndex;
const listRecord = (records: RecordToStore[], listId: string) => records.find((r) => r.reference === `status-list/${listId}`)!;

/** Set bits of a stored list version, decoded here with zlib and base64url. */
function bitsOf(content: StatusListContent): number[] {
  const bytes = gunzipSync(Buffer.from(content.encodedList.slice(1), 'base64url'));
  const out: number[] = [];
  bytes.forEach((byte, i) => {
    for (let b = 0; b < 8; b++) if ((byte >> (7 - b)) & 1) out.push(i * 8 + b);
  });
  return out;
}

describe('credential record validation', () => {
  it('accepts the demo credentials', () => {
    expect(load(demo()).filter((r) => r.kind === 'CREDENTIAL')).toHaveLength(Object.keys(DEMO_CREDENTIALS).length);
  });

  it('reports every bad credential by record and field', () => {
    const good = byRef(DEMO_CREDENTIALS.active);
    const problems = problemsOf(() =>
      validateRecords({
        records: [
          good,
          { ...good, reference: 'C-2', history: [{ type: 'SUSPENDED', at: at(-5) }] },
          { ...good, reference: 'C-3', history: [{ type: 'ISSUED', at: at(-5) }, { type: 'REINSTATED', at: at(-4) }] },
          { ...good, reference: 'C-4', history: [{ type: 'ISSUED', at: at(-5) }, { type: 'REVOKED', at: at(-4) }, { type: 'REINSTATED', at: at(-3) }] },
          { ...good, reference: 'C-5', subject: { type: 'Member', claims: { email: 'x@example.invalid', dateOfBirth: '1970-01-01' } } },
          { ...good, reference: 'C-6', subject: { type: 'Member', claims: { id: 'did:example:1' } } },
          { ...good, reference: 'C-7', validUntil: good.validFrom },
          { ...good, reference: 'C-8', issuer: 'http://insecure.example.org' },
          { ...good, reference: 'C/9' },
          { ...good, reference: 'C-10', credentialType: 'VerifiableCredential' },
          { ...good, reference: 'C-11', statusListIndex: 131_072 },
        ],
      }),
    );
    const where = problems.map((p) => p.split(':').slice(0, 2).join(':'));
    expect(where).toEqual(
      expect.arrayContaining([
        '1:history.0.type',
        '2:history.1.type',
        '3:history.2.type',
        '4:subject.claims.email',
        '4:subject.claims.dateOfBirth',
        '5:subject.claims.id',
        '6:validUntil',
        '7:issuer',
        '8:reference',
        '9:credentialType',
        '10:statusListIndex',
      ]),
    );
    expect(where.some((w) => w.startsWith('0:'))).toBe(false);
    expect(problems.find((p) => p.startsWith('3:'))).toMatch(/revocation is final/);
    expect(problems.find((p) => p.startsWith('4:'))).toMatch(/personal data; keep it in restricted/);
  });

  it('keeps restricted data with the record but out of its public content and out of every list', () => {
    const records = load(demo());
    for (const record of records) {
      for (const e of record.entries) {
        const head = e.head as { content: unknown; restricted?: unknown };
        const publicText = JSON.stringify([e.entry, e.view, head.content]);
        for (const value of DEMO_CREDENTIAL_RESTRICTED_VALUES) expect(publicText).not.toContain(value);
        if (record.kind === 'CREDENTIAL') expect(head.restricted).toBeDefined();
        else expect(head.restricted).toBeUndefined();
      }
    }
  });
});

describe('status list positions', () => {
  it('gives every credential one position, the same in both lists, identical on every load and whatever the input order', () => {
    const a = load(demo());
    const b = load(demo().reverse());
    const refs = Object.values(DEMO_CREDENTIALS);
    const positions = refs.map((ref) => indexOf(a, ref));
    expect(new Set(positions).size).toBe(refs.length);
    expect(refs.map((ref) => indexOf(b, ref))).toEqual(positions);
    for (const ref of refs) {
      const slots = contentOf(a.find((r) => r.reference === ref)!).statusSlots;
      expect(slots.map((s) => [s.statusPurpose, s.listId])).toEqual([
        ['revocation', DEMO_STATUS_LISTS.revocation],
        ['suspension', DEMO_STATUS_LISTS.suspension],
      ]);
      expect(slots[0].statusListIndex).toBe(slots[1].statusListIndex);
    }
  });

  it('writes the position into every version of a credential', () => {
    const record = load(demo()).find((r) => r.reference === DEMO_CREDENTIALS.reinstated)!;
    const versions = new Set(record.entries.map((e) => e.head));
    expect(versions.size).toBe(3);
    const positions = [...versions].map((h) => (h as { content: CredentialContent }).content.statusSlots[0]?.statusListIndex);
    expect(new Set(positions).size).toBe(1);
    expect(positions[0]).toEqual(expect.any(Number));
  });

  it('does not move a credential when a later one collides with it; an earlier-issued one takes the slot first', () => {
    const group = 'collide';
    const position = (ref: string) => createHash('sha256').update(`${group}\n${ref}`).digest().readUInt32BE(0) % 131_072;
    // Two identifiers with the same hashed position (a birthday search: a few hundred tries).
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const ref = `REF-${i}`;
      const other = seen.get(position(ref));
      if (other) pair = [other, ref];
      else seen.set(position(ref), ref);
    }
    const [first, second] = pair;
    const target = position(first);

    const later = load([credential(first, 100, { statusList: group }), credential(second, 10, { statusList: group })]);
    expect(indexOf(later, first)).toBe(target);
    expect(indexOf(later, second)).toBe((target + 1) % 131_072);

    const earlier = load([credential(first, 100, { statusList: group }), credential(second, 200, { statusList: group })]);
    expect(indexOf(earlier, second)).toBe(target);
    expect(indexOf(earlier, first)).toBe((target + 1) % 131_072);
  });

  it('honours a pinned position and refuses two credentials pinned to the same one', () => {
    const records = load([credential('PIN-1', 10, { statusListIndex: 7 }), credential('FREE-1', 10)]);
    expect(indexOf(records, 'PIN-1')).toBe(7);
    expect(indexOf(records, 'FREE-1')).not.toBe(7);
    const problems = problemsOf(() => load([credential('PIN-1', 10, { statusListIndex: 7 }), credential('PIN-2', 5, { statusListIndex: 7 })]));
    expect(problems).toEqual([expect.stringMatching(/^1:statusListIndex:7 is already held by PIN-1/)]);
  });

  it('refuses a list whose credentials name different issuers', () => {
    const problems = problemsOf(() => load([credential('ISS-1', 10), credential('ISS-2', 10, { issuer: 'https://other.example.org' })]));
    expect(problems).toEqual([expect.stringMatching(/^1:issuer:status list demo-2026 is published for did:web:issuer\.example\.org/)]);
  });
});

describe('status list versions', () => {
  const records = load(demo());
  const versions = (listId: string) =>
    listRecord(records, listId).entries.map((e) => {
      const content = (e.head as { content: StatusListContent }).content;
      return { at: e.at, version: content.version, bits: bitsOf(content), content };
    });
  const idx = (key: keyof typeof DEMO_CREDENTIALS) => indexOf(records, DEMO_CREDENTIALS[key]);

  it('publishes a version whenever a bit changes, the first at the first issuance', () => {
    const firstIssuance = at(-400);
    const suspension = versions(DEMO_STATUS_LISTS.suspension);
    expect(suspension.map((v) => [v.at, v.version, v.bits])).toEqual([
      [firstIssuance, 1, []],
      [at(-30), 2, [idx('reinstated')]],
      [at(-10), 3, []],
      [at(-2), 4, [idx('suspended')]],
    ]);
    const revocation = versions(DEMO_STATUS_LISTS.revocation);
    expect(revocation.map((v) => [v.at, v.version, v.bits])).toEqual([
      [firstIssuance, 1, []],
      [at(-3), 2, [idx('revoked')]],
    ]);
  });

  it('describes each version with its list, purpose, issuer, size and publication instant', () => {
    const [first] = versions(DEMO_STATUS_LISTS.revocation);
    expect(first.content).toMatchObject({ listId: DEMO_STATUS_LISTS.revocation, statusPurpose: 'revocation', issuer: 'did:web:issuer.example.org', entries: 131_072, publishedAt: first.at });
    expect(listRecord(records, DEMO_STATUS_LISTS.revocation).kind).toBe('STATUS_LIST');
  });
});
