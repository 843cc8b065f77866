/** The import document as the rules walk it: its operations, its schemas, and the keywords inside them. */

export type Json = Record<string, any>;

export interface Finding {
  rule: string;
  /** JSON pointer-like location in the document. */
  at: string;
  message: string;
}

export interface Rule {
  id: string;
  /** The documented restriction, quoted or closely paraphrased, and where it is written. */
  cites: string;
  check(doc: Json): Finding[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const OPERATION_KEYS = [...HTTP_METHODS, 'x-amazon-apigateway-any-method'] as const;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A JSON pointer (RFC 6901) to a location in the document. */
export const pointer = (parts: (string | number)[]) => `#/${parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** Every operation object of the document with its location. */
export function operationsOf(doc: Json): { path: string; method: string; op: Json; at: (string | number)[] }[] {
  const out: { path: string; method: string; op: Json; at: (string | number)[] }[] = [];
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of OPERATION_KEYS) if (isObject(item[method])) out.push({ path, method, op: item[method], at: ['paths', path, method] });
  }
  return out;
}

/** Every schema object (models, and schemas inline in parameters, bodies, responses and headers). */
export function schemasOf(doc: Json): { schema: Json; at: (string | number)[]; model: boolean }[] {
  const out: { schema: Json; at: (string | number)[]; model: boolean }[] = [];
  for (const [name, schema] of Object.entries(isObject(doc.components?.schemas) ? doc.components.schemas : {})) {
    if (isObject(schema)) out.push({ schema, at: ['components', 'schemas', name], model: true });
  }
  for (const [name, schema] of Object.entries(isObject(doc.definitions) ? doc.definitions : {})) {
    if (isObject(schema)) out.push({ schema, at: ['definitions', name], model: true });
  }
  for (const { op, at } of operationsOf(doc)) {
    (Array.isArray(op.parameters) ? op.parameters : []).forEach((p: Json, i: number) => {
      if (isObject(p?.schema)) out.push({ schema: p.schema, at: [...at, 'parameters', i, 'schema'], model: false });
    });
    for (const [type, media] of Object.entries(isObject(op.requestBody?.content) ? op.requestBody.content : {})) {
      if (isObject((media as Json)?.schema)) out.push({ schema: (media as Json).schema, at: [...at, 'requestBody', 'content', type, 'schema'], model: true });
    }
    for (const [status, response] of Object.entries(isObject(op.responses) ? op.responses : {})) {
      if (!isObject(response)) continue;
      for (const [type, media] of Object.entries(isObject(response.content) ? response.content : {})) {
        if (isObject((media as Json)?.schema)) out.push({ schema: (media as Json).schema, at: [...at, 'responses', status, 'content', type, 'schema'], model: true });
      }
      for (const [name, header] of Object.entries(isObject(response.headers) ? response.headers : {})) {
        if (isObject((header as Json)?.schema)) out.push({ schema: (header as Json).schema, at: [...at, 'responses', status, 'headers', name, 'schema'], model: false });
      }
    }
  }
  return out;
}

/** Every (keyword, location) inside a schema, nested schemas included. Extension (x-) subtrees are not schemas. */
export function keywordsOf(schema: Json, at: (string | number)[]): { keyword: string; value: unknown; at: (string | number)[] }[] {
  const out: { keyword: string; value: unknown; at: (string | number)[] }[] = [];
  const visit = (node: unknown, where: (string | number)[]) => {
    if (Array.isArray(node)) return node.forEach((n, i) => visit(n, [...where, i]));
    if (!isObject(node)) return;
    for (const [k, v] of Object.entries(node)) {
      if (k.startsWith('x-')) continue;
      out.push({ keyword: k, value: v, at: [...where, k] });
      // `properties` maps names to schemas: the names are not keywords, their values are schemas.
      if (k === 'properties' || k === 'patternProperties' || k === 'definitions') {
        if (isObject(v)) for (const [name, sub] of Object.entries(v)) visit(sub, [...where, k, name]);
      } else if (k !== 'enum' && k !== 'required' && k !== 'default') {
        visit(v, [...where, k]);
      }
    }
  };
  visit(schema, at);
  return out;
}
