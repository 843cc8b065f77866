import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Operation } from '../../functions/contract/operation';
import { startLocalService, type LocalService } from '../../lib/local/service';
import { demoQuery, demoValuesFor, fillPath, pathParamsOf } from '../../lib/publish/demo-values';
import { buildSite, writeSite } from '../../lib/publish/site';
import { canonicalSources, type PublishSources } from '../../lib/publish/sources';

export interface CatalogueFixture {
  service: LocalService;
  sources: PublishSources;
  site: Map<string, string>;
  siteDir: string;
  close(): Promise<void>;
}

/** Builds the developer documents into a fresh folder and serves them with the whole local service. */
export async function startCatalogueService(): Promise<CatalogueFixture> {
  const sources = canonicalSources();
  const site = buildSite(sources);
  const siteDir = await mkdtemp(path.join(os.tmpdir(), 'svc-site-'));
  await writeSite(siteDir, site);
  const service = await startLocalService({ port: 0, anchor: new Date(), siteDir });
  return {
    service,
    sources,
    site,
    siteDir,
    close: async () => {
      await service.close();
      await rm(siteDir, { recursive: true, force: true });
    },
  };
}

/** Every concrete URL to try for an operation: each combination of candidate demo values (first values first). */
export function candidateUrls(op: Pick<Operation, 'path' | 'operationId' | 'requiredQueryParams'>, sources: PublishSources): string[] {
  const params = pathParamsOf(op.path);
  const providerIds = sources.providers.map((p) => p.providerId);
  let combos: Record<string, string>[] = [{}];
  for (const name of params) {
    const values = demoValuesFor(op, name, sources.demo, providerIds);
    combos = combos.flatMap((c) => values.map((v) => ({ ...c, [name]: v })));
  }
  return combos.map((values) => fillPath(op.path, values) + demoQuery(op));
}

/** A request body for an operation: the published sandbox example for its path, or the provider's example request. */
export function exampleBodyFor(url: string, sources: PublishSources): unknown {
  const example = sources.sandboxExamples.find((e) => e.path === url);
  if (example) return example.body;
  const provider = sources.providers.find((p) => url === `/developers/sandbox/providers/${p.providerId}/run`);
  return provider ? provider.exampleRequest : {};
}

export async function request(base: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    /* HTML pages and empty 304 bodies */
  }
  return { status: res.status, headers: res.headers, text, json };
}
