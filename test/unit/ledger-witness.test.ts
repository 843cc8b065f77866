import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { checkWitnessed, parseWitnessKey } from '../../functions/domain/ledger/node-crypto';
import { cosignatureMessage } from '#verify/checks/cosignature';
import { encodeWitnessKey, generateWitnessKey, witnessFromKey } from '#verify/node/witness';
import { parseNote } from '#verify/checks/note';
import { addCosignatures } from '../../lib/ledger/cosign-log';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';

const signer = signerFromKey(generateSignerKey('witness-test.example/ledger'));
const note = signer.signCheckpoint({ origin: signer.name, treeSize: 5, rootHash: Buffer.alloc(32, 1), extensions: [] });

describe('C2SP tlog-cosignature', () => {
  test('the signed message and the key id follow the specification (0x04, "cosignature/v1", "time <t>")', () => {
    const { text } = parseNote(note);
    expect(Buffer.from(cosignatureMessage(text, 1679315147)).toString()).toBe(`cosignature/v1\ntime 1679315147\n${text}`);
    const w = witnessFromKey(generateWitnessKey('witness.example.com/w1'));
    const key = parseWitnessKey(w.witnessKey);
    expect(encodeWitnessKey(key.name, key.publicKey)).toBe(w.witnessKey);
    expect(Buffer.from(w.witnessKey.split('+')[2], 'base64')[0]).toBe(0x04);
    // The line: key name, then base64(key id ‖ u64 timestamp ‖ 64-byte signature).
    const line = w.cosign(note, 1679315147);
    const payload = Buffer.from(line.split(' ').at(-1)!, 'base64');
    expect(payload).toHaveLength(4 + 8 + 64);
    expect(payload.readUInt32BE(0)).toBe(key.keyId);
    expect(payload.readBigUInt64BE(4)).toBe(1679315147n);
    expect(() => parseWitnessKey(signer.verifierKey)).toThrow(/0x04/);
  });

  test('an operator adds only valid cosignatures by configured witnesses, to the checkpoint and its history copy; verifiers find them there', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cosign-'));
    try {
      const store = directoryTileStore(dir);
      await store.write({ path: 'checkpoint', bytes: Buffer.from(note), immutable: false });
      const [w1, w2, stranger] = ['w.example/1', 'w.example/2', 'w.example/3'].map((n) => witnessFromKey(generateWitnessKey(n)));
      const configured = [w1, w2].map((w) => parseWitnessKey(w.witnessKey));
      await expect(addCosignatures(store, [stranger.cosign(note)], configured)).rejects.toThrow(/configured witness/);
      const other = signer.signCheckpoint({ origin: signer.name, treeSize: 6, rootHash: Buffer.alloc(32, 2), extensions: [] });
      await expect(addCosignatures(store, [w1.cosign(other)], configured)).rejects.toThrow(/not a valid cosignature/);
      const out = await addCosignatures(store, [w1.cosign(note, 100), '', w2.cosign(note, 101)], configured);
      expect(out.added).toHaveLength(2);
      const history = (await store.read('checkpoints/5'))!.toString();
      expect((await store.read('checkpoint'))!.toString()).toBe(history);
      expect(parseNote(history).text).toBe(parseNote(note).text);
      // The evidence's own note has no cosignature; the history copy of the same text has both.
      expect(checkWitnessed(note, [], { witnesses: configured, required: 2 })).toMatchObject({ ok: false });
      expect(checkWitnessed(note, [history], { witnesses: configured, required: 2 })).toMatchObject({ ok: true, cosignedBy: [expect.stringContaining('w.example/1'), expect.stringContaining('w.example/2')] });
      // A copy of another checkpoint text does not count.
      const otherCopy = `${other}${w1.cosign(other)}\n`;
      expect(checkWitnessed(note, [otherCopy], { witnesses: configured, required: 1 })).toMatchObject({ ok: false });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
