import { TIMELINE_WINDOW_DEFAULT } from '../contract/timeline-window';
import { resolveObjectParams } from '../generated/params';
import { assessIntegrity } from '../domain/evidence';
import { resolveObject, type ObjectWindowEntry, type Evaluation } from '../domain/objects';
import { httpHandler } from '../http/boundary';
import { resolveObjectCaching as caching } from '../generated/caching';
import { checkParam, parseReference, referenceNotFound } from '../http/params';
import { Problem } from '../http/problem';
import { canonicalInstant } from '../store/layout';
import { environmentRecords } from '../store/environment';

/** The evaluation instant: asOf when given (never later than the service clock), else now. */
function evaluationFor(asOf: string | undefined, now: string): Evaluation {
  if (asOf === undefined) return { at: now, historical: false };
  const at = canonicalInstant(checkParam(resolveObjectParams.asOf, 'asOf', asOf));
  if (at > now) throw new Problem('INVALID_PARAMETER', `Parameter 'asOf' is later than the service clock (${now}); the future is not known.`, { parameter: 'asOf' });
  return { at, historical: at < now };
}

export const handler = httpHandler(async (request) => {
  const reference = parseReference(request.pathParameters.reference);
  const evaluation = evaluationFor(request.query.asOf, new Date().toISOString());
  const limit = request.query.limit === undefined ? TIMELINE_WINDOW_DEFAULT : checkParam(resolveObjectParams.limit, 'limit', request.query.limit);

  const records = environmentRecords();
  const window = await records.readWindow<ObjectWindowEntry['entry'], ObjectWindowEntry['view'], ObjectWindowEntry['head']>(reference, evaluation.at, limit);
  if (!window.exists || window.kind !== 'OBJECT') {
    throw await referenceNotFound(reference, `No living object is held under reference '${reference}'.`, async (upper) => (await records.readWindow(upper, evaluation.at, 1)).kind === 'OBJECT');
  }
  const entries = window.entries as ObjectWindowEntry[];
  const body = resolveObject({
    reference,
    entries,
    evaluation,
    integrityConfirmed: entries.length > 0 && assessIntegrity(entries[0].head, entries[0].headText).confirmed,
    baseUrl: request.baseUrl,
  });

  const headers: Record<string, string> = {};
  if (window.more) {
    // The next (older) window is itself a true view: the object as it stood just before the oldest entry shown.
    const oldest = entries[entries.length - 1].at;
    const before = new Date(Date.parse(oldest) - 1).toISOString();
    const next = `${request.baseUrl}/v1/objects/${encodeURIComponent(reference)}?asOf=${encodeURIComponent(before)}&limit=${limit}`;
    headers.link = `<${next}>; rel="next"`;
  }
  // An as-of view is the same bytes every time: a strong ETag, and kept as a past view. A current view
  // names the instant it was evaluated at, so its ETag is weak, over everything else it says
  // (version, state, freshness).
  if (evaluation.historical) return { status: 200, body, headers, cacheClass: 'past' };
  const { evaluatedAt: _evaluatedAt, ...currentMeaning } = body.current;
  return { status: 200, body, headers, revalidate: { weakOver: { ...body, current: currentMeaning } } };
}, { caching });
