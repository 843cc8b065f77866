import { defineOperations } from '../operation';

export const proofsOperations = defineOperations([]);
