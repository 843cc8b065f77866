import { renderCredentialReceipt, renderProofReceipt, renderTrustReceipt } from '../pages/trust-receipt-page';
import { getTrustReceiptParams } from '../generated/params';
import { requestTranslator } from '../pages/page-languages';
import { httpHandler } from '../http/boundary';
import { getTrustReceiptCaching as caching } from '../generated/caching';
import type { HttpRequest } from '../http/request';
import { checkParam, parseReference } from '../http/params';
import { Problem } from '../http/problem';
import { ledgerUrl, readRecordForPage } from './surface-record-read';
import { alternateLink, htmlPage } from './surface-responses';

/** How many timeline entries a receipt shows (newest first); the JSON routes hold the rest. */
export const RECEIPT_TIMELINE_WINDOW = 20;

/** The receipt speaks the visitor's language: ?lang=, then Accept-Language. */
const pageWords = (request: HttpRequest) => requestTranslator(request.headers['accept-language'], request.query.lang);

/** A receipt for a living object, a commercial proof or a credential. */
export const handler = httpHandler(
  htmlPage(async (request, t) => {
    const reference = parseReference(request.pathParameters.reference);
    if (request.query.lang !== undefined) checkParam(getTrustReceiptParams.lang, 'lang', request.query.lang);
    const read = await readRecordForPage(reference, request.baseUrl, RECEIPT_TIMELINE_WINDOW);
    if (!read.found) throw new Problem('NOT_FOUND', `No living object, commercial proof or credential is held under reference '${reference}'.`);
    const common = { baseUrl: request.baseUrl, reference, ledgerUrl: ledgerUrl(request.baseUrl), t };
    switch (read.kind) {
      case 'OBJECT':
        return {
          status: 200,
          headers: alternateLink(`${request.baseUrl}/v1/objects/${encodeURIComponent(reference)}`),
          body: renderTrustReceipt({ ...common, ...read.view, olderEntriesExist: read.olderEntriesExist, device: read.device }),
        };
      case 'COMMERCIAL_PROOF':
        return {
          status: 200,
          headers: alternateLink(`${request.baseUrl}/v1/commercial-proofs/${encodeURIComponent(reference)}`),
          body: renderProofReceipt({ ...common, evidence: read.evidence, integrity: read.integrity, timeline: read.timeline, olderEntriesExist: read.olderEntriesExist, device: read.device }),
        };
      case 'CREDENTIAL':
        return {
          status: 200,
          headers: alternateLink(`${request.baseUrl}/v1/credentials/verify/${encodeURIComponent(reference)}`),
          body: renderCredentialReceipt({ ...common, verification: read.verification, integrity: read.integrity, timeline: read.timeline, olderEntriesExist: read.olderEntriesExist, device: read.device }),
        };
      case 'OTHER':
        throw new Problem('NOT_FOUND', `Reference '${reference}' is neither a living object, a commercial proof nor a credential, so it has no receipt.`);
    }
  }, pageWords),
  { caching },
);
