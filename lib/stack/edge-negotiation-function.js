// A CloudFront Function (runtime cloudfront-js-2.0), run on every viewer request of the behaviours
// whose answers are negotiated (lib/stack/route-classes.ts): it rewrites Accept and Accept-Language
// to the one value the origin's negotiation would act on, so the cache key holds two values of
// Accept and one per page locale instead of one per browser's header. The rules are the pages':
// Accept as functions/pages/negotiation.ts prefersHtml reads it, Accept-Language as
// functions/pages/i18n.ts negotiateLocale reads it (test/unit/edge-negotiation.test.ts holds the
// two to the same answers). Written in ES5: the runtime is not Node.js.

// The page locales: the pages' languages (a region in the header does not change a page).
var PAGE_LOCALES = __PAGE_LOCALES__;
// A language range the pages read: functions/pages/negotiation.ts LANGUAGE_RANGE, given here.
var LANGUAGE_TAG = __LANGUAGE_RANGE__;
var HTML_TYPES = ['text/html', 'application/xhtml+xml'];
var PROBLEM_TYPES = ['application/problem+json', 'application/json'];

function prefersHtml(accept) {
  var htmlQ = 0;
  var problemQ = 0;
  var ranges = accept.split(',');
  var i, j, params, type, q, pair;
  for (i = 0; i < ranges.length; i++) {
    params = ranges[i].trim().toLowerCase().split(';');
    type = params[0].trim();
    q = 1;
    for (j = 1; j < params.length; j++) {
      pair = params[j].trim().split('=');
      if (pair[0] === 'q') q = isFinite(Number(pair[1])) ? Math.min(1, Math.max(0, Number(pair[1]))) : 0;
    }
    if (HTML_TYPES.indexOf(type) >= 0) htmlQ = Math.max(htmlQ, q);
    if (PROBLEM_TYPES.indexOf(type) >= 0) problemQ = Math.max(problemQ, q);
  }
  return htmlQ > 0 && htmlQ >= problemQ;
}

// The locale a language range selects: its language, or '' when the pages do not speak it.
function pageLocale(tag) {
  var language;
  if (!LANGUAGE_TAG.test(tag)) return '';
  language = tag.split('-')[0].toLowerCase();
  return PAGE_LOCALES.indexOf(language) >= 0 ? language : '';
}

function negotiatedLocale(acceptLanguage) {
  var ranges = acceptLanguage.slice(0, 1024).split(',');
  var candidates = [];
  var i, j, k, params, tag, q, m, locale;
  for (i = 0; i < ranges.length; i++) {
    params = ranges[i].trim().split(';');
    tag = params[0].trim();
    q = 1;
    for (j = 1; j < params.length; j++) {
      m = params[j].trim().match(/^q=([01](?:\.\d{0,3})?)$/i);
      if (m) {
        q = Number(m[1]);
        break;
      }
    }
    if (q > 0 && tag !== '*') candidates.push({ tag: tag, q: q, order: i });
  }
  candidates.sort(function (a, b) {
    return b.q - a.q || a.order - b.order;
  });
  for (k = 0; k < candidates.length; k++) {
    locale = pageLocale(candidates[k].tag);
    if (locale) return locale;
  }
  return '';
}

function headerValue(header) {
  if (!header) return '';
  if (header.multiValue && header.multiValue.length > 1) {
    return header.multiValue
      .map(function (v) {
        return v.value;
      })
      .join(',');
  }
  return header.value || '';
}

// CloudFront calls the function named handler.
// biome-ignore lint/correctness/noUnusedVariables: the runtime's entry point, called by name
function handler(event) {
  var request = event.request;
  var headers = request.headers;
  var locale = negotiatedLocale(headerValue(headers['accept-language']));
  headers['accept'] = { value: prefersHtml(headerValue(headers['accept'])) ? 'text/html' : 'application/json' };
  if (locale) headers['accept-language'] = { value: locale };
  else delete headers['accept-language'];
  return request;
}
