import { mappedValue, renderTemplate, type MappingSources } from './mapping';

/**
 * API Gateway's own answers (no integration was reached, or it failed), shaped by the API's
 * x-amazon-apigateway-gateway-responses: a response type's customisation, else DEFAULT_4XX or
 * DEFAULT_5XX for its status class (whose status code, when set, becomes every such type's), else
 * API Gateway's default (`{"message": ...}` with the type's default status).
 */

/** Default status and message of each response type the runner can produce (API Gateway's gateway response types). */
export const GATEWAY_RESPONSE_DEFAULTS = {
  MISSING_AUTHENTICATION_TOKEN: { status: 403, message: 'Missing Authentication Token' },
  RESOURCE_NOT_FOUND: { status: 404, message: 'Not Found' },
  THROTTLED: { status: 429, message: 'Too Many Requests' },
  REQUEST_TOO_LARGE: { status: 413, message: 'Request Too Long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Media Type' },
  ACCESS_DENIED: { status: 403, message: 'Forbidden' },
  API_CONFIGURATION_ERROR: { status: 500, message: 'Internal server error' },
  INTEGRATION_FAILURE: { status: 504, message: 'Internal server error' },
  INTEGRATION_TIMEOUT: { status: 504, message: 'Endpoint request timed out' },
  /** A Lambda proxy integration whose function failed or answered malformed: 502, through DEFAULT_5XX. */
  LAMBDA_FUNCTION_ERROR: { status: 502, message: 'Internal server error' },
} as const;

export type GatewayResponseType = keyof typeof GATEWAY_RESPONSE_DEFAULTS;

interface GatewayResponseDefinition {
  statusCode?: number | string;
  responseParameters?: Record<string, string>;
  responseTemplates?: Record<string, string>;
}

export interface GatewayAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function gatewayResponse(
  definitions: Record<string, GatewayResponseDefinition> | undefined,
  type: GatewayResponseType,
  sources: MappingSources,
  errorMessage: string = GATEWAY_RESPONSE_DEFAULTS[type].message,
): GatewayAnswer {
  const defaults = GATEWAY_RESPONSE_DEFAULTS[type];
  const own = type === 'LAMBDA_FUNCTION_ERROR' ? undefined : definitions?.[type];
  const fallback = definitions?.[defaults.status >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX'];
  const chosen = own ?? fallback;
  const status = Number(own?.statusCode ?? fallback?.statusCode ?? defaults.status);
  const responseType = type === 'LAMBDA_FUNCTION_ERROR' ? 'DEFAULT_5XX' : type;
  const context = { ...sources.context, error: { message: errorMessage, messageString: JSON.stringify(errorMessage), responseType } };
  const withError: MappingSources = { ...sources, context };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [target, expression] of Object.entries(chosen?.responseParameters ?? {})) {
    const name = /^gatewayresponse\.header\.(.+)$/.exec(target)?.[1];
    const value = name ? mappedValue(expression, withError) : undefined;
    if (name && value !== undefined) headers[name.toLowerCase()] = value;
  }
  const template = chosen?.responseTemplates?.['application/json'] ?? '{"message":$context.error.messageString}';
  return { status, headers, body: renderTemplate(template, withError) };
}
