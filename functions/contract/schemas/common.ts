import * as z from 'zod';
import { component } from '../registry';

/** Public, read-only disclosure statement carried by every trust response. */
export const MinimalDisclosure = component(
  'MinimalDisclosure',
  z.object({
    class: z.string().optional(),
    containsCustomerPii: z.literal(false),
    containsPaymentAccountData: z.literal(false),
  }),
  'What a response discloses: never customer personal data, never payment account data.',
);
export type MinimalDisclosure = z.infer<typeof MinimalDisclosure>;

/** RFC 9457 problem details with the service's fields. */
export const ErrorResponse = component(
  'ErrorResponse',
  z
    .object({
      type: z.string(),
      title: z.string(),
      status: z.union([z.number().int(), z.string()]),
      detail: z.string(),
      instance: z.string(),
      code: z.string(),
      correlationId: z.string(),
      service: z.string().nullable(),
      endpoint: z.string().nullable(),
    })
    .loose(),
  'RFC 9457 problem details (media type application/problem+json).',
);
export type ErrorResponse = z.infer<typeof ErrorResponse>;

/**
 * A record reference as printed on a receipt or encoded in a QR code: 3 to 180 characters
 * from an unreserved, URL-safe set (letters, digits, '-', '_', '.', ':', '~'), starting with a
 * letter or digit. Nothing in it needs percent-encoding, so a reference reads the same in a
 * path, a QR payload and a log line.
 */
export const REFERENCE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:~-]*$';
export const Reference = z
  .string()
  .min(3)
  .max(180)
  .regex(new RegExp(REFERENCE_PATTERN))
  .describe('Record reference: 3 to 180 characters of A-Z a-z 0-9 . _ : ~ -, starting with a letter or digit.');

/** An RFC 3339 instant with an explicit offset (Z or +hh:mm), as the contract's date-time. */
export const Instant = z.iso.datetime({ offset: true });
export const AsOf = Instant.max(64).describe(
  'RFC 3339 instant. The view as it stood at that instant; must not be later than the service clock.',
);
