/**
 * The lines of generated data written as JSON text, with the function that parses it on its first
 * call: a cold start only scans a string literal, where an object literal of the same data is
 * parsed, compiled and built at load (bench/README.md, Cold start).
 */
export function lazyJsonLines(options: { constName: string; fnName: string; type: string; value: unknown; textDoc: string; fnDoc: readonly string[] }): string[] {
  const { constName, fnName, type, value, textDoc, fnDoc } = options;
  return [
    `/** ${textDoc} */`,
    `const ${constName} = ${JSON.stringify(JSON.stringify(value))};`,
    '',
    `let parsed: ${type} | undefined;`,
    '',
    '/**',
    ...fnDoc.map((line) => ` * ${line}`),
    ' */',
    `export function ${fnName}(): ${type} {`,
    `  return (parsed ??= JSON.parse(${constName}));`,
    '}',
    '',
  ];
}
