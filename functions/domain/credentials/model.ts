import type { CredentialLifecycleState, StatusPurpose } from '../../contract/schemas/credentials';
import type { RecordHead } from '../record';

export const CREDENTIAL_KIND = 'CREDENTIAL';
export const STATUS_LIST_KIND = 'STATUS_LIST';

/**
 * Lifecycle events a credential's timeline holds, and the state each leads to. The issuing
 * platform records them; this service only reads them. Revocation is final (W3C: "not
 * reversible"); suspension is lifted by REINSTATED.
 */
export const CREDENTIAL_EVENTS = {
  ISSUED: 'ACTIVE',
  SUSPENDED: 'SUSPENDED',
  REINSTATED: 'ACTIVE',
  REVOKED: 'REVOKED',
} as const satisfies Record<string, CredentialLifecycleState>;
export type CredentialEvent = keyof typeof CREDENTIAL_EVENTS;

/** Which events may follow each state (ISSUED only starts a timeline). */
export const ALLOWED_EVENTS: Record<CredentialLifecycleState, readonly CredentialEvent[]> = {
  ACTIVE: ['SUSPENDED', 'REVOKED'],
  SUSPENDED: ['REINSTATED', 'REVOKED'],
  REVOKED: [],
};

/** The state a status list bit asserts, per purpose: the bit is 1 exactly in that state. */
export const PURPOSE_STATE: Record<StatusPurpose, CredentialLifecycleState> = {
  revocation: 'REVOKED',
  suspension: 'SUSPENDED',
};

/** Where a credential sits in a published list (one entry per purpose). */
export interface CredentialStatusSlot {
  statusPurpose: StatusPurpose;
  listId: string;
  statusListIndex: number;
}

/** The public content of a credential version: exactly what responses show and the ledger logs. */
export interface CredentialContent {
  credentialId: string;
  credentialType: string;
  title: string;
  /** Public identifier only (a DID or an https URL). */
  issuer: string;
  validFrom: string;
  validUntil: string | null;
  /** Public claims about the subject; never a subject identifier or personal data. */
  subject: { type: string; claims: Record<string, string | number | boolean> };
  status: CredentialLifecycleState;
  statusSince: string;
  statusList: string;
  statusSlots: CredentialStatusSlot[];
  freshnessSeconds: number;
  version: number;
}
export type CredentialHead = RecordHead<CredentialContent>;

export interface CredentialTimelineEntry {
  at: string;
  type: CredentialEvent | 'AUTHORITY_OBSERVED';
  status: CredentialLifecycleState;
  previousStatus: CredentialLifecycleState | null;
  source: string;
}

/** The cumulative view at an entry's instant. */
export interface CredentialView {
  status: CredentialLifecycleState;
  /** Latest instant the authority stated (a lifecycle event) or confirmed (an observation) the status. */
  lastConfirmedAt: string;
}

export interface CredentialWindowEntry {
  at: string;
  entry: CredentialTimelineEntry;
  view: CredentialView;
  head: CredentialHead;
  /** The head as stored, when read from the table (assessIntegrity remembers its outcome by it). */
  headText?: string;
}

/** One version of a published list: the bits as they stood from `publishedAt` on. */
export interface StatusListContent {
  listId: string;
  statusPurpose: StatusPurpose;
  issuer: string;
  entries: number;
  encodedList: string;
  publishedAt: string;
  version: number;
}
export type StatusListHead = RecordHead<StatusListContent>;

export interface StatusListWindowEntry {
  at: string;
  entry: { at: string; type: 'LIST_PUBLISHED'; version: number };
  view: Record<string, never>;
  head: StatusListHead;
}

/** Derived list records live outside the public reference alphabet ('/'), so no loaded record can collide. */
export const statusListReference = (listId: string): string => `status-list/${listId}`;
export const statusListIdOf = (group: string, purpose: StatusPurpose): string => `${group}-${purpose}`;

export function statusListUrl(baseUrl: string, listId: string): string {
  return `${baseUrl}/v1/status-lists/${encodeURIComponent(listId)}`;
}
export function portableCredentialUrl(baseUrl: string, credentialId: string): string {
  return `${baseUrl}/v1/portable-credentials/${encodeURIComponent(credentialId)}/vc.json`;
}
export function verificationUrl(baseUrl: string, credentialId: string): string {
  return `${baseUrl}/v1/credentials/verify/${encodeURIComponent(credentialId)}`;
}
