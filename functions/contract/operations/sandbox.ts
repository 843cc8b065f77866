import { defineOperations } from '../operation';

export const sandboxOperations = defineOperations([]);
