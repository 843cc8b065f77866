import { isObject, operationsOf, pointer, type Finding, type Json, type Rule } from './document';

/** The document as a whole: its OpenAPI version, paths, model names, parameters and security (sources in ../apigateway-rules.ts). */
export const DOCUMENT_RULES: readonly Rule[] = [
  {
    id: 'openapi-version',
    cites: 'IMPORT: "API Gateway supports OpenAPI v2.0 and OpenAPI v3.0 definition files" (a 3.1 document is refused at deploy: "Invalid OpenAPI input").',
    check: (doc) =>
      doc.swagger === '2.0' || /^3\.0\.\d+$/.test(String(doc.openapi ?? ''))
        ? []
        : [{ rule: 'openapi-version', at: '#/openapi', message: `version ${doc.openapi ?? doc.swagger} is not OpenAPI 2.0 or 3.0.x` }],
  },
  {
    id: 'path-segments',
    cites:
      'KNOWN: "Path segments can only contain alphanumeric characters, hyphens, periods, commas, and curly braces. Path parameters must be separate path segments."',
    check: (doc) =>
      Object.keys(doc.paths ?? {}).flatMap((path) => {
        const findings: Finding[] = [];
        if (!path.startsWith('/')) findings.push({ rule: 'path-segments', at: pointer(['paths', path]), message: 'a path starts with /' });
        for (const segment of path.split('/').slice(1)) {
          if (path === '/' && segment === '') continue;
          const whole = /^\{[A-Za-z0-9_]+\+?\}$/.test(segment);
          const literal = /^[A-Za-z0-9.,-]+$/.test(segment);
          if (!whole && !literal) {
            findings.push({ rule: 'path-segments', at: pointer(['paths', path]), message: `segment '${segment}' is neither literal (letters, digits, - . ,) nor one whole {parameter}` });
          }
        }
        return findings;
      }),
  },
  {
    id: 'reserved-paths',
    cites: 'KNOWN (REST and WebSocket): "The /ping and /sping paths are reserved for the service health check" (with custom domains, which this stack supports).',
    check: (doc) =>
      Object.keys(doc.paths ?? {})
        .filter((p) => /^\/(ping|sping)(\/|$)/.test(p))
        .map((p) => ({ rule: 'reserved-paths', at: pointer(['paths', p]), message: `${p} is reserved by API Gateway` })),
  },
  {
    id: 'model-names',
    cites: 'KNOWN: "Model names can only contain alphanumeric characters." MODEL: "name: Must be an alphanumeric string."',
    check: (doc) =>
      [...Object.keys(doc.components?.schemas ?? {}), ...Object.keys(doc.definitions ?? {})]
        .filter((name) => !/^[A-Za-z0-9]+$/.test(name))
        .map((name) => ({ rule: 'model-names', at: pointer(['components', 'schemas', name]), message: `model name '${name}' is not alphanumeric` })),
  },
  {
    id: 'parameter-attributes',
    cites:
      'KNOWN: "For input parameters, only the following attributes are supported: name, in, required, type, description. Other attributes are ignored." ' +
      '(The import document carries only those, so it never appears to validate what API Gateway ignores; in OpenAPI 3.0 the type sits in schema.)',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) =>
        (Array.isArray(op.parameters) ? op.parameters : []).flatMap((p: Json, i: number) => {
          const where = [...at, 'parameters', i];
          if (!isObject(p)) return [];
          const extra = Object.keys(p).filter((k) => !['name', 'in', 'required', 'type', 'description', 'schema'].includes(k));
          const extraSchema = isObject(p.schema) ? Object.keys(p.schema).filter((k) => k !== 'type') : [];
          return [
            ...extra.map((k) => ({ rule: 'parameter-attributes', at: pointer([...where, k]), message: `parameter attribute '${k}' is ignored by API Gateway` })),
            ...extraSchema.map((k) => ({ rule: 'parameter-attributes', at: pointer([...where, 'schema', k]), message: `parameter schema keyword '${k}' is ignored by API Gateway` })),
          ];
        }),
      ),
  },
  {
    id: 'security-schemes',
    cites: 'KNOWN: "The securitySchemes type, if used, must be apiKey."',
    check: (doc) =>
      Object.entries({ ...(doc.components?.securitySchemes ?? {}), ...(doc.securityDefinitions ?? {}) })
        .filter(([, s]) => (s as Json)?.type !== 'apiKey')
        .map(([name]) => ({ rule: 'security-schemes', at: pointer(['components', 'securitySchemes', name]), message: 'only apiKey security schemes are supported' })),
  },
  {
    id: 'root-security',
    cites: 'KNOWN: "API Gateway doesn\'t use root level security defined in the OpenAPI specification. Hence security needs to be defined at an operation level."',
    check: (doc) =>
      Array.isArray(doc.security) && doc.security.length > 0 ? [{ rule: 'root-security', at: '#/security', message: 'root-level security is ignored; declare it per operation' }] : [],
  },
  {
    id: 'deprecated',
    cites: 'KNOWN: "The deprecated field is not supported and is dropped in exported APIs."',
    check: (doc) =>
      operationsOf(doc)
        .filter(({ op }) => 'deprecated' in op)
        .map(({ at }) => ({ rule: 'deprecated', at: pointer([...at, 'deprecated']), message: "'deprecated' is not supported" })),
  },
];
