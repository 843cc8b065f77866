import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * What makes two deliveries the same event (docs/ingress.md#exactly-once-per-event), pure.
 *
 * Identity: CloudEvents names `source` + `id` as an event's identity. The contract fixes each
 * type's `source` to the collection its subject belongs to (`/v1/objects`, ...), not to its sender,
 * so the identity is taken within the authenticated sender (the sourceId whose key verified the
 * signature): two sources never have to coordinate their ids, and one cannot block another's events.
 *
 * Content: the event as a JSON value, in its RFC 8785 (JCS) canonical form. Member order,
 * insignificant whitespace, escapes and number spellings (1, 1.0, 1e0) do not make another event;
 * any difference in a name or a value does (an instant written `...Z` or `...+00:00` included:
 * the event states what it states).
 */

/** SHA-256 (hex) of a text's UTF-8 bytes. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The digest naming an event within its sender: SHA-256 of the JSON array [source, id] (unambiguous for any strings). */
export function eventIdentityDigest(event: { source: string; id: string }): string {
  return sha256Hex(JSON.stringify([event.source, event.id]));
}

/** SHA-256 of the event's canonical JSON (RFC 8785): equal for the same event however it was serialized. */
export function eventContentDigest(event: unknown): string {
  return sha256Hex(canonicalize(event) ?? 'null');
}
