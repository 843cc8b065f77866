import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BASELINE_SOURCE, CARD_BASELINE_SOURCE, CARD_FLOOR_SOURCE } from './lib/baseline';
import { bundle } from './lib/bundle';
import { coldInit } from './lib/cold-start';
import { median } from './lib/stats';
import { operations } from '../functions/contract/operations';
import { lambdaOperations } from '../lib/stack/operation-functions';
const root = path.resolve(__dirname, '..');
(async () => {
  const dir = '/tmp/qb';
  const subjects: Record<string, string> = {};
  subjects.baseline = (await bundle({ name: 'b.ts', contents: BASELINE_SOURCE }, `${dir}/baseline`, root, { credentials: 'sdk-chain' })).file;
  subjects.cardBaseline = (await bundle({ name: 'cb.ts', contents: CARD_BASELINE_SOURCE }, `${dir}/cb`, root, { credentials: 'sdk-chain' })).file;
  subjects.cardFloor = (await bundle({ name: 'cf.ts', contents: CARD_FLOOR_SOURCE }, `${dir}/cf`, root)).file;
  mkdirSync(`${dir}/empty`, { recursive: true }); writeFileSync(`${dir}/empty/index.js`, 'exports.handler = async () => ({});'); subjects.empty = `${dir}/empty/index.js`;
  const pick = (process.argv[2] ?? 'getHealth,resolveObject,getTrustReceipt,listAssets,evaluateTrustPolicy,getLanding,runTestClock,getApiReference').split(',');
  for (const op of lambdaOperations(operations).filter((o) => pick.includes(o.operationId))) subjects[op.operationId] = (await bundle(op.integration.entry, `${dir}/${op.operationId}`, root)).file;
  const env = { AWS_REGION: 'eu-central-1', POWERTOOLS_SERVICE_NAME: 'x', POWERTOOLS_LOG_LEVEL: 'INFO', TABLE_NAME: 'records', LEDGER_VERIFIER_KEYS: '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  const cpu: Record<string, number[]> = {}; const wall: Record<string, number[]> = {};
  const N = Number(process.argv[3] ?? 15);
  for (let i = 0; i < N; i++) for (const [id, file] of Object.entries(subjects)) { const r = await coldInit(file, env); (cpu[id] ??= []).push(r.cpuMs); (wall[id] ??= []).push(r.readyMs); }
  const pr = (id: string, y: string, s: Record<string, number[]>) => median(s[id].map((v, i) => v / s[y][i])).toFixed(2);
  for (const id of Object.keys(subjects)) console.log(id.padEnd(22), 'cpu', median(cpu[id]).toFixed(1), 'vsBase', pr(id, 'baseline', cpu), 'vsCardBase', pr(id, 'cardBaseline', cpu), 'vsFloor', pr(id, 'cardFloor', cpu), 'vsEmpty', pr(id, 'empty', cpu), '| wall vsBase', pr(id, 'baseline', wall), 'vsCardBase', pr(id, 'cardBaseline', wall), 'vsFloor', pr(id, 'cardFloor', wall));
})();
