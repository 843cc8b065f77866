import type { RecordHead } from '../record';
import { factOf, type AdmissionRules, type EventToIntegrate, type Head, type RecordBeginning, type Statement, type StoredTimelineEntry, type TimelineRules } from './kind';

/**
 * A commercial proof (docs/commercial-proofs.md): one version, the proof as issued; after it the
 * commerce platform's synchronization snapshots of the source record behind it. The source's state
 * belongs to the platform, so no transition rule applies to a snapshot: it is recorded at its
 * instant, and only a snapshot before the issuance is refused.
 */
export const COMMERCIAL_PROOF_KIND = 'COMMERCIAL_PROOF';

export const PROOF_SOURCE_SNAPSHOT = 'svc.commercial-proof.source-snapshot.v1';

/**
 * The public content of a commercial proof: what a response shows and what the ledger logs.
 * `source` identifies the record at the external commerce platform only by its type and the
 * digest it had when the proof was issued; never by an endpoint, an account or a credential.
 */
export type ProofContent = {
  reference: string;
  proofType: string;
  title: string;
  issuer: string;
  issuedAt: string;
  /** The living object the proof is about, when there is one (e.g. the order it proves). */
  subjectReference?: string;
  /** Public statements the proof makes (item, dates, coverage); never personal or payment data. */
  claims: Record<string, string | number | boolean>;
  source: {
    /** Public label of the source system, e.g. "External commerce platform". */
    system: string;
    recordType: string;
    /** Digest of the source record when the proof was issued (sha256:<hex>). */
    digest: string;
  };
  /** How long a synchronization snapshot keeps the source status fresh. */
  freshnessSeconds: number;
  version: number;
};
export type ProofHead = RecordHead<ProofContent>;

/** One synchronization snapshot of the source record, as observed at the platform. */
export interface SourceSnapshot {
  at: string;
  /** The source record's lifecycle state at the platform. */
  state: string;
  digest: string;
}

/** The cumulative view at an entry's instant. */
export interface ProofView {
  lastSynchronization: SourceSnapshot | null;
  synchronizations: number;
}

export interface ProofTimelineEntry {
  at: string;
  type: 'PROOF_ISSUED' | 'SOURCE_SYNCHRONIZED';
  state: string;
  source: string;
}

export const proofAdmission: AdmissionRules = {
  kind: COMMERCIAL_PROOF_KIND,
  eventTypes: [PROOF_SOURCE_SNAPSHOT],
  stateOf: (view) => ((view?.lastSynchronization as SourceSnapshot | null | undefined)?.state ?? null),
  admit: (_event, _record, late) => ({ ok: true, effect: late ? 'RECORDED_AS_HISTORY' : 'ADVANCES_CURRENT_STATE' }),
};

export const proofTimeline: TimelineRules = {
  kind: COMMERCIAL_PROOF_KIND,
  readsWhole: false,
  facts: (stored) =>
    stored.map((e) => {
      const issued = e.entry.type === 'PROOF_ISSUED';
      const snapshot = e.view.lastSynchronization as SourceSnapshot | null;
      return factOf(e, String(e.entry.state), issued, issued ? e.head : null, issued ? undefined : snapshot?.digest);
    }),
  statementOf(event: EventToIntegrate): Statement | string {
    if (event.type !== PROOF_SOURCE_SNAPSHOT) return `${event.type} is not about a commercial proof`;
    return { type: 'SOURCE_SYNCHRONIZED', change: false, state: String(event.data.sourceState), digest: String(event.data.digest) };
  },
  refusal: (facts, i, before) => (before ? null : `it states ${facts[i].at}, before the proof was issued`),
  versionOf: () => null,
  stateAt: (entry) => String(entry.entry.state),
  derive(facts, seed) {
    let head: Head | null = seed ? seed.head : null;
    let lastSynchronization = seed ? (seed.view.lastSynchronization as SourceSnapshot | null) : null;
    let synchronizations = seed ? Number(seed.view.synchronizations) : 0;
    return facts.map((f) => {
      if (f.change) head = f.head;
      if (f.type === 'SOURCE_SYNCHRONIZED') {
        lastSynchronization = { at: f.at, state: f.state, digest: f.digest! };
        synchronizations++;
      }
      const source = f.stored ? f.stored.entry.source : String((head!.content.source as { system: string }).system);
      return { at: f.at, entry: { at: f.at, type: f.type, state: f.state, source }, view: { lastSynchronization, synchronizations }, head: head! };
    });
  },
};

/** What a load file says of a commercial proof (lib/loader/formats/proof.ts checks its form). */
export interface ProofDescription extends Omit<ProofContent, 'version'> {
  restricted?: Record<string, unknown>;
  /** Synchronization snapshots of the source record, oldest first, all after issuance. */
  synchronizations: SourceSnapshot[];
}

/**
 * A proof as a file describes it: its issuance is how it begins (its one version), every
 * synchronization the snapshot event the commerce platform would send for it, integrated by the
 * same rules as the receivers' events. Instants are kept as the file writes them.
 */
export function proofFromFile(input: ProofDescription): RecordBeginning {
  const content: ProofContent = {
    reference: input.reference,
    proofType: input.proofType,
    title: input.title,
    issuer: input.issuer,
    issuedAt: input.issuedAt,
    claims: input.claims,
    source: input.source,
    freshnessSeconds: input.freshnessSeconds,
    version: 1,
  };
  if (input.subjectReference) content.subjectReference = input.subjectReference;
  const head: Head = { kind: COMMERCIAL_PROOF_KIND, reference: input.reference, version: 1, content: content as unknown as Record<string, unknown>, evidence: null };
  if (input.restricted) head.restricted = input.restricted;
  const genesis: StoredTimelineEntry = {
    id: '',
    at: input.issuedAt,
    entry: { at: input.issuedAt, type: 'PROOF_ISSUED', state: 'ISSUED', source: input.issuer },
    view: { lastSynchronization: null, synchronizations: 0 },
    head,
    eventKey: null,
  };
  const events = input.synchronizations.map(
    (s, i): EventToIntegrate => ({ key: `synchronizations.${i}`, type: PROOF_SOURCE_SNAPSHOT, reference: input.reference, at: s.at, data: { sourceState: s.state, digest: s.digest, observedAt: s.at } }),
  );
  return { genesis, events, problems: [] };
}
