/**
 * A caller's x-correlation-id is kept only when it is well formed: 8 to 128 characters of
 * letters, digits and . _ : - (UUIDs, ULIDs, trace ids). Anything else is replaced, so a
 * header can never inject text into logs or responses.
 */
const WELL_FORMED = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/;

export function correlationIdFrom(header: string | undefined, requestId: string): string {
  return header !== undefined && WELL_FORMED.test(header) ? header : requestId;
}
