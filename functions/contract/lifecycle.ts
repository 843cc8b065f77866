/**
 * Lifecycle states of living objects and what each means for a person relying on it.
 * The loader refuses any state outside this table, so every state the service shows has a
 * defined meaning (docs/semantics.md).
 */
export const LIFECYCLE_STATES = {
  // In good standing: the object is alive and nothing has taken its rights away.
  ACTIVE: 'GOOD_STANDING',
  PLACED: 'GOOD_STANDING',
  CONFIRMED: 'GOOD_STANDING',
  FULFILLED: 'GOOD_STANDING',
  SHIPPED: 'GOOD_STANDING',
  DELIVERED: 'GOOD_STANDING',
  IN_SERVICE: 'GOOD_STANDING',
  VALID: 'GOOD_STANDING',
  // Ended by the lifecycle: whatever the object granted is withdrawn.
  CANCELLED: 'REVOKED',
  REVOKED: 'REVOKED',
  RETURNED: 'REVOKED',
  RECALLED: 'REVOKED',
  VOIDED: 'REVOKED',
  // Replaced or retired: only history remains.
  SUPERSEDED: 'HISTORICAL',
  ARCHIVED: 'HISTORICAL',
} as const;

export type LifecycleState = keyof typeof LIFECYCLE_STATES;
