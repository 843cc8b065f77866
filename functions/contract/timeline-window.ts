/**
 * The timeline window of an object read. Plain constants without zod, so that a handler that
 * needs the default does not load the contract's schemas (schemas/objects.ts builds the
 * TimelineLimit parameter from them).
 */
export const TIMELINE_WINDOW_DEFAULT = 50;
export const TIMELINE_WINDOW_MAX = 200;
