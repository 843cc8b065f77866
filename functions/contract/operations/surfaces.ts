import { z } from 'zod';
import { ACTIVATION_SETTING_NAMES } from '../activation-settings';
import { defineOperations } from '../operation';
import { LANGUAGE_TAG, LANGUAGES } from '../languages';
import { Reference } from '../schemas/common';
import { ActivationReadiness, HtmlPage, ProductionFoundations, TrustFabricCatalogue, TrustInfrastructure } from '../schemas/surfaces';

/** ?lang= on the person-facing pages: the visible language switcher's choice, before Accept-Language. */
export const PageLanguage = z
  .string()
  .max(35)
  .regex(LANGUAGE_TAG)
  .describe(
    `The page's language, a language tag (${LANGUAGES.join(', ')} are spoken; a region such as de-AT also sets the date format). ` +
      'Takes precedence over Accept-Language; a language the pages do not speak falls back to Accept-Language, then English.',
  );

const html = (schema: typeof HtmlPage) => ({ schema, mediaType: 'text/html' as const });

/** A page's answer depends on Accept (a problem is a page for a browser, problem details otherwise) and on Accept-Language. */
const PAGE_NEGOTIATION = ['Accept', 'Accept-Language'] as const;

/** Human-facing pages and the trust-infrastructure / activation-readiness JSON routes. */
export const surfacesOperations = defineOperations([
  {
    operationId: 'getTrustFabricCatalogue',
    method: 'GET',
    path: '/v1/trust-fabric/catalogue',
    tag: 'Trust and verification',
    summary: 'Provider-neutral trust services, assurance levels and disclosure classes',
    description: 'Static per release and base URL.',
    liveState: 'LIVE',
    response: { schema: TrustFabricCatalogue },
    errors: [],
    caching: ['document'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-trust-fabric-catalogue.ts', access: 'none' },
  },
  {
    operationId: 'getTrustInfrastructure',
    method: 'GET',
    path: '/v1/trust-infrastructure',
    tag: 'Trust infrastructure',
    summary: 'Capabilities, standards, channels, vertical profiles and readiness',
    description: 'Built from the contract, standards and channels tables.',
    liveState: 'LIVE',
    response: { schema: TrustInfrastructure },
    errors: [],
    caching: ['document'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-trust-infrastructure.ts', access: 'none' },
  },
  {
    operationId: 'getActivationReadiness',
    method: 'GET',
    path: '/v1/activation-readiness',
    tag: 'Trust infrastructure',
    summary: 'Identity and wallet-protocol activation gates, inspected when asked, without secrets',
    description: 'Reports whether each setting is configured (and well formed), never its value. Live activation stays gated.',
    liveState: 'LIVE',
    response: { schema: ActivationReadiness },
    errors: [],
    caching: ['inspection'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-activation-readiness.ts', access: 'none', settings: ACTIVATION_SETTING_NAMES },
  },
  {
    operationId: 'getProductionFoundations',
    method: 'GET',
    path: '/v1/activation-readiness/production-foundations',
    tag: 'Trust infrastructure',
    summary: 'Schema and persistence readiness; signing, custody, treasury, settlement and regulatory authority stay fail-closed',
    description: 'One read of the table metadata when asked. An unreachable table is reported in a 200 answer, not as an error.',
    liveState: 'LIVE',
    response: { schema: ProductionFoundations },
    errors: [],
    caching: ['inspection'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-production-foundations.ts', access: 'table-read' },
  },
  {
    operationId: 'getStudio',
    method: 'GET',
    path: '/studio',
    tag: 'Human surfaces',
    summary: 'Operating surface: live status, developer catalogues, sandbox and every endpoint',
    liveState: 'LIVE',
    response: html(HtmlPage),
    errors: [],
    caching: ['inspection'],
    varies: PAGE_NEGOTIATION,
    integration: { kind: 'lambda', entry: 'functions/handlers/get-studio.ts', access: 'table-read', settings: ACTIVATION_SETTING_NAMES },
  },
  {
    operationId: 'getVerifyPage',
    method: 'GET',
    path: '/verify',
    tag: 'Human surfaces',
    summary: 'Public verification entry: a form, and the status of the reference entered',
    description:
      'Without a reference, the form. With ?reference=, the status from one read. Problems are an HTML page to clients ' +
      'that prefer text/html, problem details otherwise.',
    liveState: 'LIVE',
    queryParams: { reference: Reference.describe('The reference to check; surrounding spaces are ignored.'), lang: PageLanguage },
    response: html(HtmlPage),
    errors: [400, 404, 503],
    caching: ['current'],
    varies: PAGE_NEGOTIATION,
    integration: { kind: 'lambda', entry: 'functions/handlers/get-verify-page.ts', access: 'table-read' },
  },
  {
    operationId: 'getTrustReceipt',
    method: 'GET',
    path: '/trust-receipt/{reference}',
    tag: 'Human surfaces',
    summary: 'Human-readable, lifecycle-aware trust receipt of a living object, a commercial proof or a credential',
    description: 'Problems are an HTML page to clients that prefer text/html, problem details otherwise.',
    liveState: 'LIVE',
    pathParams: { reference: Reference },
    queryParams: { lang: PageLanguage },
    response: html(HtmlPage),
    errors: [400, 404, 503],
    caching: ['current'],
    varies: PAGE_NEGOTIATION,
    integration: { kind: 'lambda', entry: 'functions/handlers/get-trust-receipt.ts', access: 'table-read' },
  },
]);
