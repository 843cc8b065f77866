/**
 * An AWS SDK client without the SDK's logger middleware. It builds a log line of every request and
 * answer for the client's logger, filtered through the operation's schema (every attribute value
 * of every item walked and copied), even when the logger is the SDK's default, which writes
 * nothing; this service gives its clients no logger. A CPU profile of the sequencer put that walk
 * at about 4.5% of its time (docs/capacity.md#one-logs-speed); timed alone, request by request,
 * the difference is within this machine's noise. Work no one reads, removed by name before the
 * client's first request, through the SDK's own middleware stack.
 */
export function withoutSdkLogLines<C extends { middlewareStack: { remove(toRemove: string): boolean } }>(client: C): C {
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return client;
}
/** The name the SDK gives its logger middleware (@aws-sdk/core); a test holds every client the functions make to its absence. */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';
