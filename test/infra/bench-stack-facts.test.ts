import { ROUTE_FUNCTION_MEMORY_MB, SEQUENCER_MEMORY_MB } from '../../bench/lib/capacity/functions';
import { SEQUENCER, stackFacts, synthesizedTemplate } from '../../bench/lib/cost/stack-facts';
import { lambdaOperations } from '../../lib/stack/operation-functions';
import { operations } from '../../functions/contract/operations';

/**
 * The cost bench prices the stack as it synthesizes (bench/lib/cost/stack-facts.ts): it finds
 * every Lambda operation's function and the sequencer, with their memory, architecture and log
 * settings, the access log and the alarms; and the capacity bench runs the functions with the
 * memory the stack gives them.
 */
const facts = stackFacts(synthesizedTemplate());

test('every Lambda operation of the contract and the sequencer are found, with the memory the benches run them with', () => {
  for (const op of lambdaOperations(operations)) expect({ op: op.operationId, memory: facts.functions.get(op.operationId)?.memoryMb }).toEqual({ op: op.operationId, memory: ROUTE_FUNCTION_MEMORY_MB });
  expect(facts.functions.get(SEQUENCER)).toMatchObject({ memoryMb: SEQUENCER_MEMORY_MB, architecture: 'arm64' });
});

test('the access log (only without the edge, by default), the alarms, the ledger key and the receivers\' secret are counted', () => {
  expect(facts.accessLog).toBeNull();
  expect(stackFacts(synthesizedTemplate({ edge: 'false' })).accessLog?.format).toContain('$context.requestId');
  expect(facts.alarms).toBeGreaterThan(0);
  expect(facts.kmsKeys).toBe(1);
  expect(facts.secrets).toBe(1);
});
