import { defineOperations } from '../operation';

export const cataloguesOperations = defineOperations([]);
