import * as z from 'zod';

/**
 * Every named schema of the public contract registers here under its component name.
 * The OpenAPI generator walks this registry, so a schema is declared exactly once and
 * yields the TypeScript type (z.infer), the runtime validator and the published JSON Schema.
 */
export const contractRegistry = z.registry<{ id: string; description?: string }>();

export function component<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  contractRegistry.add(schema, description ? { id, description } : { id });
  return schema;
}
