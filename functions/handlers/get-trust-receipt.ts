import { OTHER_KIND_ROUTES } from '../domain/surfaces/verify-page';
import { renderTrustReceipt } from '../domain/surfaces/trust-receipt-page';
import { httpHandler } from '../http/boundary';
import { parseReference } from '../http/params';
import { Problem } from '../http/problem';
import { ledgerUrl, readObjectForPage } from './surface-object-read';
import { htmlPage } from './surface-responses';

/** How many timeline entries a receipt shows (newest first); the JSON route pages through the rest. */
export const RECEIPT_TIMELINE_WINDOW = 20;

export const handler = httpHandler(
  htmlPage(async (request) => {
    const reference = parseReference(request.pathParameters.reference);
    const read = await readObjectForPage(reference, request.baseUrl, RECEIPT_TIMELINE_WINDOW);
    if (!read.found) throw new Problem('NOT_FOUND', `No living object is held under reference '${reference}'.`);
    if (!('view' in read)) {
      const route = OTHER_KIND_ROUTES[read.kind];
      const seeAlso = route ? `${request.baseUrl}${route.path(encodeURIComponent(reference))}` : undefined;
      throw new Problem(
        'NOT_FOUND',
        `Reference '${reference}' is ${route ? route.label : 'not a living object'}, so it has no lifecycle receipt.${seeAlso ? ` Its verification answer is at ${seeAlso}.` : ''}`,
        seeAlso ? { seeAlso } : {},
      );
    }
    return {
      status: 200,
      body: renderTrustReceipt({ baseUrl: request.baseUrl, reference, ...read.view, olderEntriesExist: read.olderEntriesExist, ledgerUrl: ledgerUrl(request.baseUrl) }),
    };
  }),
);
