import { createHash } from 'node:crypto';
import { canonicalBytes } from '#verify/checks/canonical';

/** SHA-256 (hex) of the RFC 8785 canonical JSON of a value (the ledger's canonical form): equal JSON values, equal digests. */
export function canonicalSha256(value: unknown): string {
  return createHash('sha256').update(canonicalBytes(value)).digest('hex');
}

/** The `sha256:<hex>` form the sandbox shows. */
export function digestOf(value: unknown): string {
  return `sha256:${canonicalSha256(value)}`;
}
