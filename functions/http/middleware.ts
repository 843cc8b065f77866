import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { HttpContext, HttpResponse } from './request';

/**
 * What a request's answer is on its way through the middlewares: the operation's HttpResponse
 * until functions/http/http-response.ts serialises it, API Gateway's proxy result from then on.
 */
export type Answer = HttpResponse | APIGatewayProxyResult;

/** A middy middleware of the HTTP operations. */
export type HttpMiddleware = MiddlewareObj<APIGatewayProxyEvent, Answer, Error, HttpContext>;

export function isProxyResult(answer: Answer | null | undefined): answer is APIGatewayProxyResult {
  return typeof answer === 'object' && answer !== null && 'statusCode' in answer;
}

export function isHttpResponse(answer: Answer | null | undefined): answer is HttpResponse {
  return typeof answer === 'object' && answer !== null && 'status' in answer && !('statusCode' in answer);
}
