import type { z } from 'zod';

type Def = { type: string; shape?: Record<string, z.ZodType>; values?: unknown[]; innerType?: z.ZodType };
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

function literalOf(schema: z.ZodType | undefined): string | null {
  if (!schema) return null;
  const def = defOf(schema);
  if (def.type === 'literal' && typeof def.values?.[0] === 'string') return def.values[0];
  return def.innerType ? literalOf(def.innerType) : null;
}

/** The fields that carry a body's version, and how to name the version they carry. */
const VERSION_FIELDS: Array<[field: string, label: (v: string) => string]> = [
  ['schemaVersion', (v) => v],
  ['openapi', (v) => `OpenAPI ${v}`],
  ['asyncapi', (v) => `AsyncAPI ${v}`],
  ['specversion', (v) => `CloudEvents ${v}`],
];

/** The version a response schema declares by a constant (schemaVersion, openapi, asyncapi, specversion), or null. */
export function declaredVersion(schema: z.ZodType): string | null {
  const shape = defOf(schema).shape;
  if (!shape) return null;
  for (const [field, label] of VERSION_FIELDS) {
    const value = literalOf(shape[field]);
    if (value) return label(value);
  }
  return null;
}
