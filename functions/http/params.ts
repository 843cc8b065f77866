import type { z } from 'zod';
import { Reference } from '../contract/schemas/common';
import { Problem, type ProblemCode } from './problem';

/** Validates one parameter against its contract schema; a failure is a 400 naming the parameter. */
export function parseParam<T extends z.ZodType>(schema: T, name: string, value: string | undefined, code: ProblemCode = 'INVALID_PARAMETER'): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const why = result.error.issues[0]?.message ?? 'invalid value';
    throw new Problem(code, `Parameter '${name}' is invalid: ${why}. ${schema.description ?? ''}`.trim(), { parameter: name });
  }
  return result.data;
}

export function parseReference(value: string | undefined): string {
  return parseParam(Reference, 'reference', value, 'INVALID_REFERENCE');
}
