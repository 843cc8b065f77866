import { loggedRecord } from '../record';
import { trustContextUrl, UNDEFINED_TERMS_CONTEXT, VC_V2_CONTEXT } from '../../contract/credential-context';
import type { BitstringStatusListCredential, BitstringStatusListEntry, PortableCredential } from '../../contract/schemas/credentials';
import { portableCredentialUrl, statusListUrl, verificationUrl, type CredentialContent, type CredentialStatusSlot, type StatusListHead } from './model';

/** How long a fetched status list may be reused (the list's ttl, and the route's Cache-Control max-age). */
export const STATUS_LIST_TTL_MS = 300_000;

/** Entries in a fixed purpose order, so every projection of a credential lists them alike. */
export function statusListEntries(slots: readonly CredentialStatusSlot[], baseUrl: string): BitstringStatusListEntry[] {
  return [...slots]
    .sort((a, b) => a.statusPurpose.localeCompare(b.statusPurpose))
    .map((slot) => {
      const list = statusListUrl(baseUrl, slot.listId);
      return {
        id: `${list}#${slot.statusListIndex}`,
        type: 'BitstringStatusListEntry',
        statusPurpose: slot.statusPurpose,
        statusListIndex: String(slot.statusListIndex),
        statusListCredential: list,
      };
    });
}

/**
 * The W3C VC 2.0 projection of a credential. Allowlisted fields only: the subject carries its
 * public claims and no `id` (a subject identifier correlates a person). No `proof`: this service
 * does not sign (signing stays fail-closed), so the document says it is unsigned instead of
 * carrying a made-up proof. Its credential type, subject type and claims are the issuer's
 * vocabulary, which the VC 2.0 undefined-terms context maps, so that a JSON-LD processor in safe
 * mode keeps every claim (docs/credentials.md#json-ld).
 */
export function portableCredential(content: CredentialContent, baseUrl: string): PortableCredential {
  return {
    '@context': [VC_V2_CONTEXT, UNDEFINED_TERMS_CONTEXT],
    id: portableCredentialUrl(baseUrl, content.credentialId),
    type: ['VerifiableCredential', content.credentialType],
    name: content.title,
    description:
      'Unsigned projection of a credential held by the issuing platform. It carries no proof and does not by itself prove anything; ' +
      `check its current status at ${verificationUrl(baseUrl, content.credentialId)} or in the status lists named in credentialStatus.`,
    issuer: content.issuer,
    validFrom: content.validFrom,
    ...(content.validUntil === null ? {} : { validUntil: content.validUntil }),
    credentialSubject: { type: content.subject.type, ...content.subject.claims },
    credentialStatus: statusListEntries(content.statusSlots, baseUrl),
  };
}

/**
 * The BitstringStatusListCredential for one stored version of a list, with that version as logged
 * and its ledger evidence: `logged` is the service's own term, defined by its context.
 */
export function statusListCredential(head: StatusListHead, baseUrl: string): BitstringStatusListCredential {
  const { content } = head;
  const id = statusListUrl(baseUrl, content.listId);
  return {
    '@context': [VC_V2_CONTEXT, trustContextUrl(baseUrl)],
    id,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    name: `Status list ${content.listId} (${content.statusPurpose})`,
    description:
      `Unsigned status list: a set bit means the credential at that index is ${content.statusPurpose === 'revocation' ? 'revoked' : 'suspended'}. ` +
      `Version ${content.version}, published ${content.publishedAt}; ?timestamp= returns the list as it stood at an instant.`,
    issuer: content.issuer,
    validFrom: content.publishedAt,
    credentialSubject: {
      id: `${id}#list`,
      type: 'BitstringStatusList',
      statusPurpose: content.statusPurpose,
      encodedList: content.encodedList,
      ttl: STATUS_LIST_TTL_MS,
    },
    logged: loggedRecord(head),
  };
}
