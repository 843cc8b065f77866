import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';

/**
 * @middy/core 7 and @middy/util publish an ES module entry only (their `exports` have an `import`
 * condition alone). Code run from source here is CommonJS (tsx: `npm start`, the bench), where
 * require() finds no entry for such a package (ERR_PACKAGE_PATH_NOT_EXPORTED) although Node.js
 * loads the ES module itself once found (require(esm), Node.js 20.19 and later). Imported first,
 * this module resolves such a package to its ES module entry when, and only when, require()
 * finds none. The deployed bundles need none of it (esbuild resolves `import` entries itself), nor
 * do the tests (jest.config.js maps the two packages). Node.js 20 has no public synchronous
 * resolution hook (module.registerHooks is Node.js 22.15+), hence the loader's own resolver.
 */
type Resolve = (request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolve; _nodeModulePaths(from: string): string[] };

function importEntryOf(request: string, parent: { filename?: string | null } | undefined): string | null {
  const from = parent?.filename ? path.dirname(parent.filename) : process.cwd();
  for (const dir of loader._nodeModulePaths(from)) {
    const manifest = path.join(dir, request, 'package.json');
    if (!fs.existsSync(manifest)) continue;
    const entry = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { exports?: Record<string, { import?: string | { default?: string } }> }).exports?.['.']?.import;
    const file = typeof entry === 'string' ? entry : entry?.default;
    return file ? path.join(dir, request, file) : null;
  }
  return null;
}

const resolve = loader._resolveFilename;
loader._resolveFilename = function (this: unknown, request, parent, ...rest) {
  try {
    return resolve.call(this, request, parent, ...rest);
  } catch (error) {
    const file = (error as NodeJS.ErrnoException).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' ? importEntryOf(request, parent) : null;
    if (!file) throw error;
    return file;
  }
};
