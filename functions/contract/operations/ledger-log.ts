import { defineOperations, type Operation } from '../operation';
import { LedgerCheckpointNote, LedgerCheckpointSize, LedgerSuccessorPath, LedgerTile, LedgerTilePath } from '../schemas/ledger';
import { LEDGER_LOG } from '../site-paths';

const TAG = 'Trust and verification';
const key = (rest: string) => `${LEDGER_LOG.keyPrefix}${rest}`;

/** A signed checkpoint note served from the bucket (the latest, or one of the history). */
const checkpointOperation = (
  operationId: string,
  rest: string,
  summary: string,
  description: string,
  caching: NonNullable<Operation['caching']>,
  pathParams?: Operation['pathParams'],
): Operation => ({
  operationId,
  method: 'GET',
  path: `${LEDGER_LOG.path}${rest}`,
  tag: TAG,
  summary,
  description,
  liveState: 'LIVE',
  ...(pathParams ? { pathParams } : {}),
  response: { schema: LedgerCheckpointNote, mediaType: 'text/plain' },
  errors: [404, 503],
  caching,
  integration: { kind: 'log', key: key(rest) },
});

/**
 * The ledger as a C2SP tlog-tiles log (https://c2sp.org/tlog-tiles): static resources the loader
 * writes into the catalogue bucket, served straight from it (on this machine, from the tile folder
 * with the same headers). Monitors fetch them under the prefix GET /v1/ledger publishes as
 * tiles.monitoringPrefix; `npm run monitor` is one.
 */
export const ledgerLogOperations = defineOperations([
  checkpointOperation(
    'getLedgerLogCheckpoint',
    'checkpoint',
    "The log's latest signed checkpoint (C2SP tlog-checkpoint), with any witness cosignatures",
    'Replaced by every batch the sequencer integrates. text/plain; charset=utf-8.',
    ['checkpoint'],
  ),
  checkpointOperation(
    'getLedgerLogCheckpointAt',
    'checkpoints/{treeSize}',
    'The signed checkpoint the log published for an earlier tree size (its checkpoint history)',
    'One per published tree size. 404 for a size the log never published.',
    ['published'],
    { treeSize: LedgerCheckpointSize },
  ),
  {
    operationId: 'getLedgerLogTile',
    method: 'GET',
    path: `${LEDGER_LOG.path}tile/{tilePath}`,
    tag: TAG,
    summary: 'A hash tile or entry bundle of the log (C2SP tlog-tiles)',
    description:
      'tile/<L>/<N>[.p/<W>]: hashes of height 8; tile/entries/<N>[.p/<W>]: the entries (RFC 8785 canonical JSON of each record version). ' +
      '404 for a tile the log does not hold.',
    liveState: 'LIVE',
    pathParams: { tilePath: LedgerTilePath },
    multiSegmentParams: ['tilePath'],
    response: { schema: LedgerTile, mediaType: 'application/octet-stream' },
    errors: [404, 503],
    caching: ['immutable', 'partial-tile'],
    integration: { kind: 'log', key: key('tile/{tilePath}') },
  },
  {
    operationId: 'getLedgerSuccessorLogResource',
    method: 'GET',
    path: `${LEDGER_LOG.path}logs/{logPath}`,
    tag: TAG,
    summary: 'A resource of a log that continued the first after a key change (C2SP tlog-tiles, below logs/<id>/)',
    description:
      '<id>/checkpoint, <id>/checkpoints/<size>, <id>/tile/...: the same resources, bytes and headers as the first log\'s, for the log GET /v1/ledger lists with that ' +
      'monitoringPrefix (docs/ledger.md#when-the-key-must-change). 404 for a resource the log does not hold. READY until a key change begins a successor log.',
    liveState: 'READY',
    pathParams: { logPath: LedgerSuccessorPath },
    multiSegmentParams: ['logPath'],
    response: { schema: LedgerTile, mediaType: 'application/octet-stream' },
    errors: [404, 503],
    caching: ['checkpoint', 'published', 'immutable', 'partial-tile'],
    integration: { kind: 'log', key: key('logs/{logPath}') },
  },
]);
