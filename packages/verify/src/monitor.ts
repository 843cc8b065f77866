/**
 * @public-trust/verify/monitor (Node.js): audit the service's ledger as a C2SP tlog-tiles log,
 * trusting nothing it serves, and keep the state between runs; and a witness's cosigning key.
 */
export { runMonitor, MONITOR_STATE_FORMAT } from './node/monitor';
export type { LogFetch, MonitorOptions, MonitorProblem, MonitorProblemKind, MonitorReport, MonitorState } from './node/monitor';
export { readMonitorState, runMonitorWithState, stateFiles } from './node/monitor-state';
export type { StateFiles } from './node/monitor-state';
export { encodeWitnessKey, generateWitnessKey, witnessFromKey, WitnessKeyError } from './node/witness';
export type { WitnessSigner } from './node/witness';
export type { WitnessPolicy } from './checks/cosignature';
