import { buildBundle } from '../test/support/bundle';
import { CARD_FLOOR_SOURCE } from './lib/baseline';
(async () => {
  const floor = await buildBundle({ contents: CARD_FLOOR_SOURCE });
  const floorInputs = new Set(floor.inputs);
  for (const entry of process.argv.slice(2)) {
    const b = await buildBundle(entry);
    const out = Object.entries(b.metafile.outputs).find(([f]) => f.endsWith('index.js'))![1];
    const rows = Object.entries(out.inputs).filter(([i, v]) => v.bytesInOutput > 0 && !floorInputs.has(i)).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
    console.log('==', entry, (b.bytes / 1024).toFixed(1), 'KiB; beyond floor:', (rows.reduce((s, r) => s + r[1].bytesInOutput, 0) / 1024).toFixed(1));
    for (const [i, v] of rows.slice(0, 14)) console.log('  ', (v.bytesInOutput / 1024).toFixed(1), i);
  }
})();
