import { LIFECYCLE_STATES, type LifecycleState } from '../contract/lifecycle';

/** The lifecycle vocabulary is published by the contract (functions/contract/lifecycle.ts). */
export { LIFECYCLE_STATES, type LifecycleState };
export type LifecycleClass = (typeof LIFECYCLE_STATES)[LifecycleState] | 'UNKNOWN';

export function isLifecycleState(state: string): state is LifecycleState {
  return Object.hasOwn(LIFECYCLE_STATES, state);
}

export function lifecycleClass(state: string): LifecycleClass {
  return isLifecycleState(state) ? LIFECYCLE_STATES[state] : 'UNKNOWN';
}

/** Object types presented with a CustomerAccountOrderCard. */
export const ORDER_LIKE_TYPES = ['ORDER', 'PURCHASE', 'SUBSCRIPTION'] as const;
export const isOrderLike = (objectType: string): boolean => (ORDER_LIKE_TYPES as readonly string[]).includes(objectType);
