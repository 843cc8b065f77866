import { defineOperations } from '../operation';

export const credentialsOperations = defineOperations([]);
