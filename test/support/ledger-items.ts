import type { AttributeValue } from '@aws-sdk/client-dynamodb';

type Item = Record<string, AttributeValue>;

/** The level-0 hash tiles among a table's items (layout.ts: pk "L#T#00#" + index), by index. */
export const levelZeroTiles = (items: readonly Item[]): Item[] =>
  items.filter((i) => i.pk.S!.startsWith('L#T#00#')).sort((a, b) => a.pk.S!.localeCompare(b.pk.S!));

/** The log's leaf hashes as the table holds them (the hashes of its level-0 tiles), in order, each as { leafHash: { B } }. */
export function leafItems(items: readonly Item[]): Array<{ leafHash: { B: Uint8Array } }> {
  return levelZeroTiles(items).flatMap((tile) => {
    const hashes = tile.hashes.B!;
    return Array.from({ length: hashes.length / 32 }, (_, i) => ({ leafHash: { B: hashes.subarray(i * 32, (i + 1) * 32) } }));
  });
}
