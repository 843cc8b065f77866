/**
 * What API Gateway's REST import accepts, as a linter over an import document. Each rule cites
 * the documented restriction it enforces (Amazon API Gateway developer guide), so a schema or
 * route change that would break a deployment fails a test instead of `cdk deploy`.
 *
 * Sources (developer guide pages, by their file name):
 *   KNOWN   api-gateway-known-issues ("Amazon API Gateway important notes for REST APIs")
 *   IMPORT  api-gateway-import-api ("supports OpenAPI v2.0 and OpenAPI v3.0 definition files")
 *   INTEG   api-gateway-swagger-extensions-integration (x-amazon-apigateway-integration)
 *   GWRESP  supported-gateway-response-types, api-gateway-swagger-extensions-gateway-responses.*
 *   ANY     api-gateway-swagger-extensions-any-method
 *   MODEL   API_Model ("name: Must be an alphanumeric string"; "JSON schema draft 4 model")
 *   MAPPING rest-api-parameter-mapping-sources (parameter mapping source reference for REST APIs)
 */

import type { Finding, Json, Rule } from './apigateway-rules/document';
import { DOCUMENT_RULES } from './apigateway-rules/document-rules';
import { INTEGRATION_RULES } from './apigateway-rules/integration-rules';
import { SCHEMA_RULES } from './apigateway-rules/schema-rules';

export type { Finding, Rule } from './apigateway-rules/document';

export const APIGATEWAY_RULES: readonly Rule[] = [...DOCUMENT_RULES, ...SCHEMA_RULES, ...INTEGRATION_RULES];

/** Every finding of every rule (empty when API Gateway's documented restrictions are all met). */
export function lintImportDocument(doc: Json, rules: readonly Rule[] = APIGATEWAY_RULES): Finding[] {
  return rules.flatMap((rule) => rule.check(doc));
}
