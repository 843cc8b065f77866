/**
 * The parts of API Gateway's request and response mapping the import document uses: parameter
 * mappings (`'literal'`, `context.requestId`, `method.request.header.X`,
 * `integration.response.header.X`, ...) and templates made of `$context.*` substitutions (gateway
 * responses take nothing else: they are not run through VTL). A template using VTL beyond plain
 * substitutions (#set, #if, $input, $util) is reported at start as not emulated.
 */

export interface MappingSources {
  context: Record<string, unknown>;
  /** method.request.{header,path,querystring}.NAME */
  methodRequest?: { header: Record<string, string>; path: Record<string, string>; querystring: Record<string, string> };
  /** integration.response.header.NAME */
  integrationResponseHeaders?: Record<string, string>;
  stageVariables?: Record<string, string>;
}

function lookup(object: Record<string, unknown> | undefined, path: string): unknown {
  let value: unknown = object;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function headerIn(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  return Object.entries(headers).find(([k]) => k.toLowerCase() === lower)?.[1];
}

/** The value of a mapping expression; undefined when its source has nothing (the header is then not set). */
export function mappedValue(expression: string, sources: MappingSources): string | undefined {
  const literal = /^'(.*)'$/s.exec(expression);
  if (literal) return literal[1];
  if (expression.startsWith('context.')) {
    const value = lookup(sources.context, expression.slice('context.'.length));
    return value === undefined || value === null ? undefined : String(value);
  }
  if (expression.startsWith('stageVariables.')) return sources.stageVariables?.[expression.slice('stageVariables.'.length)];
  const method = /^method\.request\.(header|path|querystring)\.(.+)$/.exec(expression);
  if (method) {
    const [, where, name] = method;
    const values = sources.methodRequest?.[where as 'header' | 'path' | 'querystring'];
    return where === 'header' ? headerIn(values, name) : values?.[name];
  }
  const integration = /^integration\.response\.header\.(.+)$/.exec(expression);
  if (integration) return headerIn(sources.integrationResponseHeaders, integration[1]);
  throw new Error(`mapping expression ${expression} is not emulated`);
}

/** A template's `$context.x.y` (and `$stageVariables.x`) substituted; `$context.error.messageString` is the quoted message. */
export function renderTemplate(template: string, sources: MappingSources, missing = ''): string {
  return template.replace(/\$(context|stageVariables)((?:\.[A-Za-z0-9_]+)+)/g, (_whole, root: string, rest: string) => {
    const path = rest.slice(1);
    if (root === 'stageVariables') return sources.stageVariables?.[path] ?? missing;
    const value = lookup(sources.context, path);
    return value === undefined || value === null ? missing : String(value);
  });
}

/** Whether a template is only substitutions (what renderTemplate can do). */
export function isPlainSubstitution(template: string): boolean {
  return !/#(set|if|foreach|else|end|macro)\b|\$(input|util|method)\b/.test(template);
}
