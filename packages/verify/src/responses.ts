/**
 * Where the logged record and its ledger evidence sit in each answer of the service that carries
 * them. Only the record and the evidence are read; what the service concluded about them
 * (`evidenceIntegrityConfirmed`, `proofVerified`, the credential's `integrity` check, a proof's
 * `ledger.integrity`) is reported beside the offline result, never used as part of it.
 */
export type SubjectKind = 'object' | 'commercial-proof' | 'credential' | 'status-list' | 'record';

export interface EvidenceSubject {
  kind: SubjectKind;
  /** The record's reference (object, proof), credential id or status list id, when it names one. */
  reference: string | null;
  /** The record version shown, exactly as it should have been logged. */
  record: unknown;
  /** Its ledger evidence, without any verdict of the service riding along; null when the answer carries none. */
  evidence: unknown;
  /** What the service itself said about this evidence, when the answer says (true: confirmed). */
  serviceSaid: boolean | null;
}

export class UnrecognizedResponseError extends Error {
  override name = 'UnrecognizedResponseError';
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const flag = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null);

/** The evidence fields only: a proof answer's `integrity` is the service's own judgement, not evidence. */
function evidenceOnly(ledger: unknown): unknown {
  if (!isObject(ledger)) return ledger ?? null;
  const { integrity: _serviceVerdict, ...evidence } = ledger;
  return evidence;
}

/** `logged: { record, evidence }` of credential results and status lists. */
function logged(answer: Json): { record: unknown; evidence: unknown } {
  const member = isObject(answer.logged) ? answer.logged : {};
  return { record: member.record, evidence: member.evidence ?? null };
}

const isStatusList = (answer: Json): boolean => Array.isArray(answer.type) && answer.type.includes('BitstringStatusListCredential');

/**
 * The subject of an answer: a living object resolution, a commercial proof, a credential
 * verification result or a status list as the service returns them, or a `{ record, evidence }`
 * document. Throws UnrecognizedResponseError for anything else (a problem document among them).
 */
export function evidenceSubject(answer: unknown): EvidenceSubject {
  if (!isObject(answer)) throw new UnrecognizedResponseError('the answer is not a JSON object');
  switch (answer.schemaVersion) {
    case 'svc.living-object-resolution.v1': {
      const current = isObject(answer.current) ? answer.current : {};
      return { kind: 'object', reference: isObject(answer.object) ? text(answer.object.reference) : null, record: answer.object, evidence: evidenceOnly(current.ledger), serviceSaid: flag(current.evidenceIntegrityConfirmed) };
    }
    case 'svc.commercial-proof-evidence.v1': {
      const verification = isObject(answer.verification) ? answer.verification : {};
      return { kind: 'commercial-proof', reference: isObject(answer.proof) ? text(answer.proof.reference) : null, record: answer.proof, evidence: evidenceOnly(verification.ledger), serviceSaid: flag(verification.proofVerified) };
    }
    case 'svc.credential-verification.v1': {
      const integrity = Array.isArray(answer.checks) ? answer.checks.find((c: unknown) => isObject(c) && c.check === 'integrity') : undefined;
      return { kind: 'credential', reference: text(answer.credentialId), ...logged(answer), serviceSaid: isObject(integrity) ? integrity.outcome === 'PASS' : null };
    }
  }
  if (isStatusList(answer)) {
    const member = logged(answer);
    return { kind: 'status-list', reference: isObject(member.record) ? text(member.record.listId) : null, ...member, serviceSaid: null };
  }
  if ('record' in answer && 'evidence' in answer) {
    return { kind: 'record', reference: isObject(answer.record) ? text(answer.record.reference) : null, record: answer.record, evidence: evidenceOnly(answer.evidence), serviceSaid: null };
  }
  if (typeof answer.status === 'number' && typeof answer.title === 'string') {
    throw new UnrecognizedResponseError(`the answer is a problem (${answer.status} ${answer.title}${typeof answer.detail === 'string' ? `: ${answer.detail}` : ''}), not a record`);
  }
  throw new UnrecognizedResponseError(
    'the answer is not an object resolution, a commercial proof, a credential verification result or a status list as the service returns them, nor a { record, evidence } document',
  );
}
