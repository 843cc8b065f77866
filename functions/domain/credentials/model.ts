/**
 * What a credential and a status list are (their content, views, lifecycle and the state each list
 * bit asserts) is written once, in functions/domain/kinds/credential.ts and status-list.ts; the
 * read path takes the types from here, with the URLs under which the service publishes them.
 */
export {
  CREDENTIAL_KIND,
  type CredentialContent,
  type CredentialStatusSlot,
  type CredentialTimelineEntry,
  type CredentialView,
  type CredentialWindowEntry,
} from '../kinds/credential';
export {
  STATUS_LIST_KIND,
  statusListReference,
  type StatusListContent,
  type StatusListHead,
  type StatusListWindowEntry,
} from '../kinds/status-list';

export function statusListUrl(baseUrl: string, listId: string): string {
  return `${baseUrl}/v1/status-lists/${encodeURIComponent(listId)}`;
}
export function portableCredentialUrl(baseUrl: string, credentialId: string): string {
  return `${baseUrl}/v1/portable-credentials/${encodeURIComponent(credentialId)}/vc.json`;
}
export function verificationUrl(baseUrl: string, credentialId: string): string {
  return `${baseUrl}/v1/credentials/verify/${encodeURIComponent(credentialId)}`;
}
