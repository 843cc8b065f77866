/**
 * CloudFront's cache behaviour path patterns: case-sensitive, matched against the whole path
 * (without the query string); `*` stands for zero or more characters, `/` included, and `?` for
 * exactly one ("Path pattern", CloudFront developer guide, cache behavior settings). A pattern
 * without a leading slash is taken as if it had one.
 */
export function pathPatternMatcher(pattern: string): (path: string) => boolean {
  const anchored = pattern.startsWith('/') ? pattern : `/${pattern}`;
  const source = anchored.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  const re = new RegExp(`^${source}$`);
  return (path) => re.test(path);
}

/** The first of the patterns (in the distribution's order) that matches the path, or undefined: the default behaviour. */
export function firstMatchingPattern(patterns: readonly string[], path: string): string | undefined {
  return patterns.find((pattern) => pathPatternMatcher(pattern)(path));
}
