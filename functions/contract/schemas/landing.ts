import * as z from 'zod';
import { LIVE_STATES } from '../operation';
import { component } from '../registry';
import { MinimalDisclosure } from './common';

const Url = z.string().describe('Absolute URL on this service (an RFC 6570 template where `templated` is true).');

export const LandingEntry = component(
  'LandingEntry',
  z.object({
    operationId: z.string(),
    method: z.enum(['GET', 'POST']),
    path: z.string(),
    href: Url,
    templated: z.boolean().describe('True when the URL holds {parameters} to fill in (path parameters, or required query parameters as {?name,...}).'),
    mediaType: z.string().describe('Media type of the 200 answer.'),
    liveState: z.enum(LIVE_STATES),
    summary: z.string(),
  }),
  'One operation of the contract table, with its absolute URL on this deployment.',
);
export type LandingEntry = z.infer<typeof LandingEntry>;

export const LandingIndex = component(
  'LandingIndex',
  z.object({
    schemaVersion: z.literal('svc.landing-index.v1'),
    service: z.string(),
    description: z.string(),
    links: z.object({
      self: Url,
      home: Url,
      developers: Url,
      apiReference: Url.optional(),
      openApi: Url.optional(),
      catalogue: Url.optional(),
      verify: Url.optional(),
      studio: Url.optional(),
      health: Url.optional(),
    }),
    trustRoutes: z.array(LandingEntry).describe('/health and the /v1 routes: the trust and verification API.'),
    pages: z.array(LandingEntry).describe('Server-rendered HTML pages for people.'),
    developerDocuments: z.array(LandingEntry).describe('JSON documents under /developers/ (catalogues, contracts, examples).'),
    sandbox: z.array(LandingEntry).describe('Sandbox operations: deterministic, no production side effects.'),
    files: z.array(LandingEntry).describe('Static files: the API reference renderer and the site icon.'),
    disclosure: MinimalDisclosure,
  }),
  'The index of the service (GET / and GET /developers without a preference for HTML): every operation of the contract table, exactly once, with absolute URLs.',
);
export type LandingIndex = z.infer<typeof LandingIndex>;

export const StaticFile = component('StaticFile', z.string(), 'A static text file served as built: script, stylesheet, licence text or SVG icon.');
