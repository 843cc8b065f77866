import { defineOperations } from '../operation';

/** Human-facing pages and the trust-infrastructure / activation-readiness JSON routes. */
export const surfacesOperations = defineOperations([]);
