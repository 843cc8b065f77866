import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import type { ListMember } from './formats/shared';

/**
 * What a load must remember about every record between its two passes, kept on disk in a
 * LevelDB database (classic-level) in a temporary folder, so memory stays flat however many
 * records a file holds:
 *   r!<reference>                    the index of the record first seen with it (duplicates)
 *   c!<group>!<index, 12 digits>     a list member's summary (status lists), a group's in file order
 *   p!<reference>                    a member's position in its group's lists
 * LevelDB keeps a small write buffer and block cache in memory and sorts the rest on disk; its
 * ordered keys give each status list group's credentials together, in file order.
 */
export class LoadScratch {
  private constructor(
    private readonly dir: string,
    private readonly db: ClassicLevel<string, string>,
  ) {}

  static async open(): Promise<LoadScratch> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'trust-load-'));
    const db = new ClassicLevel<string, string>(dir, { valueEncoding: 'utf8' });
    await db.open();
    return new LoadScratch(dir, db);
  }

  /**
   * Notes the references of a batch of records (in file order) and returns, for each record whose
   * reference was seen before (earlier in the batch or in an earlier batch), the index of the
   * record that first had it.
   */
  async seeReferences(batch: readonly { index: number; reference: string }[]): Promise<Map<number, number>> {
    const stored = await this.db.getMany(batch.map((r) => `r!${r.reference}`));
    const firstSeen = new Map<string, number>();
    const duplicates = new Map<number, number>();
    batch.forEach((r, i) => {
      const earlier = stored[i] !== undefined ? Number(stored[i]) : firstSeen.get(r.reference);
      if (earlier !== undefined) duplicates.set(r.index, earlier);
      else firstSeen.set(r.reference, r.index);
    });
    await this.db.batch([...firstSeen].map(([reference, index]) => ({ type: 'put' as const, key: `r!${reference}`, value: String(index) })));
    return duplicates;
  }

  async addMembers(summaries: readonly ListMember[]): Promise<void> {
    if (summaries.length === 0) return;
    await this.db.batch(summaries.map((s) => ({ type: 'put' as const, key: `c!${s.group}!${String(s.index).padStart(12, '0')}`, value: JSON.stringify(s) })));
  }

  /** Each status list group with its members in file order, groups in name order. */
  async *memberGroups(): AsyncIterable<{ group: string; members: ListMember[] }> {
    let current: { group: string; members: ListMember[] } | null = null;
    for await (const value of this.db.values({ gt: 'c!', lt: 'c"' })) {
      const summary = JSON.parse(value) as ListMember;
      if (current && current.group !== summary.group) {
        yield current;
        current = null;
      }
      current ??= { group: summary.group, members: [] };
      current.members.push(summary);
    }
    if (current) yield current;
  }

  async setPositions(positions: ReadonlyMap<string, number>): Promise<void> {
    if (positions.size === 0) return;
    await this.db.batch([...positions].map(([reference, position]) => ({ type: 'put' as const, key: `p!${reference}`, value: String(position) })));
  }

  async positions(references: readonly string[]): Promise<Map<string, number>> {
    const values = await this.db.getMany(references.map((r) => `p!${r}`));
    return new Map(references.flatMap((reference, i) => (values[i] !== undefined ? [[reference, Number(values[i])] as const] : [])));
  }

  async close(): Promise<void> {
    await this.db.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
