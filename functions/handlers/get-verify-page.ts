import { jsonAlternateOf, renderVerifyPage, type VerifyOutcome } from '../pages/verify-page';
import { prefersHtml } from '../pages/negotiation';
import { getVerifyPageParams } from '../generated/params';
import { requestTranslator } from '../pages/page-languages';
import { httpHandler } from '../http/boundary';
import { getVerifyPageCaching as caching } from '../generated/caching';
import { problemOf } from '../http/problem-details';
import type { HttpRequest, HttpResponse } from '../http/request';
import { checkParam, parseReference } from '../http/params';
import { Problem, PROBLEMS } from '../http/problem';
import { ledgerUrl, readRecordForPage } from './surface-record-read';
import { alternateLink, htmlPage } from './surface-responses';

async function answer(request: HttpRequest, entered: string): Promise<VerifyOutcome> {
  if (entered.trim() === '') throw new Problem('INVALID_REFERENCE', 'Enter a reference to check.', { parameter: 'reference' });
  const reference = parseReference(entered.trim());
  const read = await readRecordForPage(reference, request.baseUrl, 1);
  if (!read.found) throw new Problem('NOT_FOUND', `No record is held under reference '${reference}'. Check it against the receipt or label.`);
  switch (read.kind) {
    case 'OBJECT':
      return { kind: 'object', ...read.view, device: read.device };
    case 'COMMERCIAL_PROOF':
      return { kind: 'proof', evidence: read.evidence, integrity: read.integrity, device: read.device };
    case 'CREDENTIAL':
      return { kind: 'credential', verification: read.verification, integrity: read.integrity, device: read.device };
    case 'OTHER':
      return { kind: 'other-kind', reference, recordKind: read.recordKind };
  }
}

/** The page speaks the visitor's language: ?lang=, then Accept-Language. */
const pageWords = (request: HttpRequest) => requestTranslator(request.headers['accept-language'], request.query.lang);

/**
 * /verify: the entry form; with ?reference= it answers inline from one read, without script.
 * A browser sees problems inside the form page (same status); other clients get problem details.
 */
export const handler = httpHandler(
  htmlPage(async (request, t): Promise<HttpResponse> => {
    const entered = request.query.reference;
    const render = (outcome: VerifyOutcome) => renderVerifyPage({ baseUrl: request.baseUrl, entered, outcome, ledgerUrl: ledgerUrl(request.baseUrl), t });
    if (request.query.lang !== undefined) checkParam(getVerifyPageParams.lang, 'lang', request.query.lang);
    if (entered === undefined) return { status: 200, body: render({ kind: 'form' }) };
    try {
      const outcome = await answer(request, entered);
      const json = jsonAlternateOf(request.baseUrl, outcome);
      return { status: 200, headers: json ? alternateLink(json) : {}, body: render(outcome) };
    } catch (error) {
      const problem = problemOf(error);
      if (!problem || !prefersHtml(request.headers.accept)) throw error;
      const outcome: VerifyOutcome = {
        kind: 'problem',
        status: problem.status,
        code: problem.code,
        title: PROBLEMS[problem.code].title,
        detail: problem.detail,
        correlationId: request.correlationId,
      };
      return { status: problem.status, headers: problem.headers, body: render(outcome) };
    }
  }, pageWords),
  { caching },
);
