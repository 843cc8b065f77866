import { isObject, keywordsOf, operationsOf, pointer, schemasOf, type Finding, type Json, type Rule } from './document';

/** A rule refusing one schema keyword, in models only or in every schema. */
function forbidKeyword(id: string, cites: string, keyword: string, scope: 'models' | 'all'): Rule {
  return {
    id,
    cites,
    check: (doc) =>
      schemasOf(doc)
        .filter((s) => scope === 'all' || s.model)
        .flatMap((s) => keywordsOf(s.schema, s.at))
        .filter((k) => k.keyword === keyword)
        .map((k) => ({ rule: id, at: pointer(k.at), message: `'${keyword}' is not supported${scope === 'models' ? ' in models' : ''}` })),
  };
}

/** Keywords of later JSON Schema drafts (6 to 2020-12) that draft 4 does not know. */
const NOT_DRAFT_4 = ['const', 'contains', 'propertyNames', 'if', 'then', 'else', '$defs', 'prefixItems', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'examples', '$comment', 'contentMediaType', 'contentEncoding', '$anchor', '$dynamicRef'];

/** Models and schemas: JSON Schema draft 4 and the keywords API Gateway refuses, responses and where models are used (sources in ../apigateway-rules.ts). */
export const SCHEMA_RULES: readonly Rule[] = [
  {
    id: 'draft-4-models',
    cites: 'KNOWN: "API Gateway models are defined using JSON schema draft 4, instead of the JSON schema used by OpenAPI." MODEL: "this should be JSON schema draft 4 model".',
    check: (doc) =>
      schemasOf(doc)
        .filter((s) => s.model)
        .flatMap((s) => keywordsOf(s.schema, s.at))
        .filter((k) => NOT_DRAFT_4.includes(k.keyword) || (k.keyword === 'type' && Array.isArray(k.value)) || (k.keyword === 'exclusiveMaximum' && typeof k.value === 'number'))
        .map((k) => ({ rule: 'draft-4-models', at: pointer(k.at), message: `'${k.keyword}' (as written here) is not JSON Schema draft 4` })),
  },
  forbidKeyword('no-additional-properties', 'KNOWN: "The additionalProperties and anyOf fields are not supported in Models."', 'additionalProperties', 'models'),
  forbidKeyword('no-any-of', 'KNOWN: "The additionalProperties and anyOf fields are not supported in Models."', 'anyOf', 'models'),
  forbidKeyword('no-one-of', 'KNOWN: "oneOf is not supported by API Gateway."', 'oneOf', 'all'),
  forbidKeyword('no-discriminator', 'KNOWN: "The discriminator parameter is not supported in any schema object."', 'discriminator', 'all'),
  forbidKeyword('no-example', 'KNOWN: "The example tag is not supported."', 'example', 'all'),
  forbidKeyword('no-exclusive-minimum', 'KNOWN: "exclusiveMinimum is not supported by API Gateway."', 'exclusiveMinimum', 'all'),
  forbidKeyword('no-read-only', 'KNOWN: "The readOnly field is not supported."', 'readOnly', 'all'),
  {
    id: 'no-example-outside-schemas',
    cites: 'KNOWN: "The example tag is not supported." (Media types and parameters carry example/examples in OpenAPI 3.0 too.)',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) => {
        const found: Finding[] = [];
        (Array.isArray(op.parameters) ? op.parameters : []).forEach((p: Json, i: number) => {
          for (const k of ['example', 'examples']) if (isObject(p) && k in p) found.push({ rule: 'no-example-outside-schemas', at: pointer([...at, 'parameters', i, k]), message: `'${k}' is not supported` });
        });
        const media = [
          ...Object.entries(isObject(op.requestBody?.content) ? op.requestBody.content : {}).map(([t, m]) => ({ m, where: [...at, 'requestBody', 'content', t] })),
          ...Object.entries(isObject(op.responses) ? op.responses : {}).flatMap(([s, r]) =>
            Object.entries(isObject((r as Json)?.content) ? (r as Json).content : {}).map(([t, m]) => ({ m, where: [...at, 'responses', s, 'content', t] })),
          ),
        ];
        for (const { m, where } of media) for (const k of ['example', 'examples']) if (isObject(m) && k in m) found.push({ rule: 'no-example-outside-schemas', at: pointer([...where, k]), message: `'${k}' is not supported` });
        return found;
      }),
  },
  {
    id: 'number-formats',
    cites: 'KNOWN: "Numbers of the Int32 or Int64 type are not supported" ({"format": "int32", "type": "number"}); "Decimal number format type ("format": "decimal") is not supported".',
    check: (doc) =>
      schemasOf(doc).flatMap((s) => {
        const found: Finding[] = [];
        const visit = (node: unknown, where: (string | number)[]) => {
          if (Array.isArray(node)) return node.forEach((n, i) => visit(n, [...where, i]));
          if (!isObject(node)) return;
          if (node.format === 'decimal' || (node.type === 'number' && (node.format === 'int32' || node.format === 'int64'))) {
            found.push({ rule: 'number-formats', at: pointer([...where, 'format']), message: `type ${node.type} with format ${node.format} is not supported` });
          }
          for (const [k, v] of Object.entries(node)) if (!k.startsWith('x-') && k !== 'enum' && k !== 'default') visit(v, [...where, k]);
        };
        visit(s.schema, s.at);
        return found;
      }),
  },
  {
    id: 'response-refs',
    cites: 'KNOWN: "Response definitions of the \\"500\\": {\\"$ref\\": \\"#/responses/UnexpectedError\\"} form is not supported in the OpenAPI document root."',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) =>
        Object.entries(isObject(op.responses) ? op.responses : {})
          .filter(([, r]) => isObject(r) && typeof r.$ref === 'string')
          .map(([status]) => ({ rule: 'response-refs', at: pointer([...at, 'responses', status, '$ref']), message: 'a response must be written inline, not by $ref' })),
      ),
  },
  {
    id: 'response-schema-object',
    cites: 'KNOWN: "In method responses, schema definition must be of an object type and cannot be of primitive types."',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) =>
        Object.entries(isObject(op.responses) ? op.responses : {}).flatMap(([status, r]) =>
          Object.entries(isObject((r as Json)?.content) ? (r as Json).content : {})
            .filter(([, m]) => isObject((m as Json)?.schema) && !(m as Json).schema.$ref && (m as Json).schema.type !== 'object')
            .map(([type]) => ({ rule: 'response-schema-object', at: pointer([...at, 'responses', status, 'content', type, 'schema']), message: 'a method response schema must be an object (or a $ref to a model)' })),
        ),
      ),
  },
  {
    id: 'no-response-models-on-proxy',
    cites:
      'INTEG: with type aws_proxy the function\'s answer is returned as is and method responses are not applied, so a response model there validates nothing ' +
      '(this project carries only what API Gateway uses).',
    check: (doc) =>
      operationsOf(doc)
        .filter(({ op }) => String(op['x-amazon-apigateway-integration']?.type ?? '').toLowerCase() === 'aws_proxy')
        .flatMap(({ op, at }) =>
          Object.entries(isObject(op.responses) ? op.responses : {})
            .filter(([, r]) => isObject((r as Json)?.content))
            .map(([status]) => ({ rule: 'no-response-models-on-proxy', at: pointer([...at, 'responses', status, 'content']), message: 'a proxy integration needs no response model' })),
        ),
  },
  {
    id: 'models-only-where-validated',
    cites:
      'Request models are used only by a request validator that validates bodies (x-amazon-apigateway-request-validator with validateRequestBody); ' +
      'a model no validator reads is carried for nothing.',
    check: (doc) => {
      const validators: Json = doc['x-amazon-apigateway-request-validators'] ?? {};
      const validatesBody = (name: unknown) => typeof name === 'string' && validators[name]?.validateRequestBody === true;
      const rootValidator = doc['x-amazon-apigateway-request-validator'];
      const findings: Finding[] = operationsOf(doc)
        .filter(({ op }) => isObject(op.requestBody?.content) && Object.values(op.requestBody.content).some((m) => isObject((m as Json)?.schema)))
        .filter(({ op }) => !validatesBody(op['x-amazon-apigateway-request-validator'] ?? rootValidator))
        .map(({ at }) => ({ rule: 'models-only-where-validated', at: pointer([...at, 'requestBody']), message: 'a request model without a body validator validates nothing' }));
      const referenced = JSON.stringify(doc.paths ?? {});
      for (const name of Object.keys(doc.components?.schemas ?? {})) {
        if (!referenced.includes(`"#/components/schemas/${name}"`)) {
          findings.push({ rule: 'models-only-where-validated', at: pointer(['components', 'schemas', name]), message: `model ${name} is used by no operation` });
        }
      }
      return findings;
    },
  },
];
