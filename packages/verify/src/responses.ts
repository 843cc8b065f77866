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
  /**
   * Fields the answer shows beside the logged record (a status list's bits, a credential's issuer),
   * each with the record's value it must equal: the ledger vouches for the record, so what a
   * relying party reads elsewhere in the answer must be the record's.
   */
  shownFields: ShownField[];
}

export interface ShownField {
  /** Where the answer shows it, e.g. `credentialSubject.encodedList`. */
  shown: string;
  /** The record's field it must equal. */
  logged: string;
  shownValue: unknown;
  loggedValue: unknown;
}

export class UnrecognizedResponseError extends Error {
  override name = 'UnrecognizedResponseError';
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const flag = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null);

/** The evidence fields only: a proof answer's `integrity` is the service's own judgement, not evidence. */
export function evidenceOnly(ledger: unknown): unknown {
  if (!isObject(ledger)) return ledger ?? null;
  const { integrity: _serviceVerdict, ...evidence } = ledger;
  return evidence;
}

/** `logged: { record, evidence }` of credential results and status lists. */
function logged(answer: Json): { record: unknown; evidence: unknown } {
  const member = isObject(answer.logged) ? answer.logged : {};
  return { record: member.record, evidence: member.evidence ?? null };
}

const field = (record: unknown, name: string): unknown => (isObject(record) ? record[name] : undefined);
const shownAs = (pairs: Array<[string, unknown, string]>, record: unknown): ShownField[] =>
  pairs.map(([shown, shownValue, logged]) => ({ shown, logged, shownValue, loggedValue: field(record, logged) }));
/** The last path segment of a URL, decoded (as it is when it cannot be): the list id a status list's `id` names. */
function lastSegment(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  const segment = url.slice(url.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
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
      return { kind: 'object', reference: isObject(answer.object) ? text(answer.object.reference) : null, record: answer.object, evidence: evidenceOnly(current.ledger), serviceSaid: flag(current.evidenceIntegrityConfirmed), shownFields: [] };
    }
    case 'svc.commercial-proof-evidence.v1': {
      const verification = isObject(answer.verification) ? answer.verification : {};
      return { kind: 'commercial-proof', reference: isObject(answer.proof) ? text(answer.proof.reference) : null, record: answer.proof, evidence: evidenceOnly(verification.ledger), serviceSaid: flag(verification.proofVerified), shownFields: [] };
    }
    case 'svc.credential-verification.v1': {
      const integrity = Array.isArray(answer.checks) ? answer.checks.find((c: unknown) => isObject(c) && c.check === 'integrity') : undefined;
      const member = logged(answer);
      const window = isObject(answer.validityWindow) ? answer.validityWindow : {};
      const shownFields = shownAs(
        [
          ['credentialId', answer.credentialId, 'credentialId'],
          ['credentialType', answer.credentialType, 'credentialType'],
          ['issuer', answer.issuer, 'issuer'],
          ['validityWindow.validFrom', window.validFrom, 'validFrom'],
          ['validityWindow.validUntil', window.validUntil, 'validUntil'],
        ],
        member.record,
      );
      return { kind: 'credential', reference: text(answer.credentialId), ...member, serviceSaid: isObject(integrity) ? integrity.outcome === 'PASS' : null, shownFields };
    }
  }
  if (isStatusList(answer)) {
    const member = logged(answer);
    const list = isObject(answer.credentialSubject) ? answer.credentialSubject : {};
    const shownFields = shownAs(
      [
        ['id', lastSegment(answer.id), 'listId'],
        ['issuer', answer.issuer, 'issuer'],
        ['validFrom', answer.validFrom, 'publishedAt'],
        ['credentialSubject.statusPurpose', list.statusPurpose, 'statusPurpose'],
        ['credentialSubject.encodedList', list.encodedList, 'encodedList'],
      ],
      member.record,
    );
    return { kind: 'status-list', reference: text(field(member.record, 'listId')), ...member, serviceSaid: null, shownFields };
  }
  if ('record' in answer && 'evidence' in answer) {
    return { kind: 'record', reference: text(field(answer.record, 'reference')), record: answer.record, evidence: evidenceOnly(answer.evidence), serviceSaid: null, shownFields: [] };
  }
  if (typeof answer.status === 'number' && typeof answer.title === 'string') {
    throw new UnrecognizedResponseError(`the answer is a problem (${answer.status} ${answer.title}${typeof answer.detail === 'string' ? `: ${answer.detail}` : ''}), not a record`);
  }
  throw new UnrecognizedResponseError(
    'the answer is not an object resolution, a commercial proof, a credential verification result or a status list as the service returns them, nor a { record, evidence } document',
  );
}
