import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import S3rver from 's3rver';
import { handler as listAssets } from '../../functions/handlers/list-assets';
import { DOCUMENT_CACHE_CONTROL, mediaTypeOf, readDocument } from '../../lib/local/documents';
import { buildSite, writeSite } from '../../lib/publish/site';
import { canonicalSources } from '../../lib/publish/sources';


const BUCKET = 'catalogue';
let site: Map<string, string>;
let siteDir: string;
let s3Dir: string;
let s3server: { close(): Promise<void> };
let s3: S3Client;

beforeAll(async () => {
  site = buildSite(canonicalSources());
  siteDir = await mkdtemp(path.join(os.tmpdir(), 'svc-site-'));
  s3Dir = await mkdtemp(path.join(os.tmpdir(), 'svc-s3-'));
  await writeSite(siteDir, site);
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  s3server = server;
  s3 = new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'eu-central-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  // What the stack's BucketDeployment does: every built file, keyed as in the folder, with its media type and cache rule.
  for (const [key, bytes] of site) {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: bytes, ContentType: mediaTypeOf(key), CacheControl: DOCUMENT_CACHE_CONTROL }));
  }
});

afterAll(async () => {
  s3.destroy();
  await s3server.close();
  await rm(siteDir, { recursive: true, force: true });
  await rm(s3Dir, { recursive: true, force: true });
});

describe('the local server answers documents as the bucket does', () => {
  test('same bytes, ETag, Content-Type and Cache-Control for every document', async () => {
    for (const key of site.keys()) {
      const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
      const local = (await readDocument(key, undefined, siteDir))!;
      expect(local.status).toBe(200);
      expect(local.body!.toString('utf8')).toBe(await object.Body!.transformToString());
      expect(`${key} ${local.headers.etag}`).toBe(`${key} ${object.ETag}`);
      expect(local.headers['content-type']).toBe(object.ContentType);
      expect(local.headers['cache-control']).toBe(object.CacheControl);
    }
  });

  test('both answer 304 to a matching If-None-Match and 200 to another', async () => {
    const key = 'developers/catalogue.json';
    const { ETag } = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    const notModified = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, IfNoneMatch: ETag })).then(
      () => 200,
      (error: S3ServiceException) => error.$metadata.httpStatusCode,
    );
    expect(notModified).toBe(304);
    expect((await readDocument(key, ETag, siteDir))!.status).toBe(304);

    const other = '"00000000000000000000000000000000"';
    await expect(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, IfNoneMatch: other }))).resolves.toBeDefined();
    expect((await readDocument(key, other, siteDir))!.status).toBe(200);
  });

  test('a document that was not built is absent from both', async () => {
    expect(await readDocument('developers/no-such.json', undefined, siteDir)).toBeNull();
    await expect(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'developers/no-such.json' }))).rejects.toMatchObject({ name: 'NoSuchKey' });
  });
});

function event(query: Record<string, string> | null, headers: Record<string, string> = {}): APIGatewayProxyEvent {
  return {
    resource: '/developers/assets.json',
    path: '/developers/assets.json',
    httpMethod: 'GET',
    headers: { host: 'api.example.test', ...headers },
    multiValueHeaders: {},
    queryStringParameters: query,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'integration-request-0001', path: '/prod/developers/assets.json', domainName: 'api.example.test' } as APIGatewayProxyEvent['requestContext'],
  };
}
const context = { awsRequestId: 'integration-request-0001', functionName: 'listAssets' } as Context;
const invoke = (e: APIGatewayProxyEvent) => listAssets(e, context) as Promise<APIGatewayProxyResult>;

describe('the assets function, invoked as API Gateway invokes it', () => {
  test('without filters it returns the built document byte for byte, with ETag and Cache-Control', async () => {
    const result = await invoke(event(null));
    expect(result.statusCode).toBe(200);
    expect(result.body).toBe(site.get('developers/assets.json'));
    expect(result.headers!['content-type']).toMatch(/^application\/json/);
    expect(result.headers!['cache-control']).toBe(DOCUMENT_CACHE_CONTROL);
    const { ETag } = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'developers/assets.json' }));
    expect(result.headers!.etag).toBe(ETag);
  });

  test('If-None-Match with its ETag gives 304 and no body', async () => {
    const first = await invoke(event({ lifecycle: 'LIVE' }));
    const second = await invoke(event({ lifecycle: 'LIVE' }, { 'If-None-Match': `W/"x", ${first.headers!.etag}` }));
    expect(second.statusCode).toBe(304);
    expect(second.body).toBe('');
  });

  test('an unknown filter value is a 400 problem naming the parameter, never a 500', async () => {
    const result = await invoke(event({ reuseScope: 'ANYWHERE' }));
    expect(result.statusCode).toBe(400);
    expect(result.headers!['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(result.body)).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'reuseScope', endpoint: '/developers/assets.json' });
  });
});
