/**
 * What the page tests read from a rendered page, as browser-side scripts (given as text: this
 * project's TypeScript has no DOM types).
 */

/** A word is a run of letters, marks and digits: a line may break at punctuation (an underscore, a slash, a hyphen), never inside a run. */
export interface SplitWord {
  word: string;
  /** The text around it, to find it on the page. */
  context: string;
  lines: number;
}

/**
 * Shared by the scripts below: the visible text nodes of the body in document order, each with
 * the box it lays out in. Text a person cannot see is left out: no layout box (display: none, a
 * closed <details>), or inside a box clipped to a pixel (the visually hidden headers of a table
 * that a phone shows as rows, which only screen readers read).
 */
const VISIBLE_TEXT = `
  const clippedAway = new Map();
  const isClippedAway = (el) => {
    if (!el) return false;
    if (clippedAway.has(el)) return clippedAway.get(el);
    const s = getComputedStyle(el);
    const clipped = (s.overflow === 'hidden' || s.clipPath !== 'none') && (el.clientWidth <= 1 || el.clientHeight <= 1);
    const result = clipped || isClippedAway(el.parentElement);
    clippedAway.set(el, result);
    return result;
  };
  /** The box a text's lines belong to: its nearest ancestor that is not laid out inline. */
  const blockOf = (node) => {
    let el = node.parentElement;
    while (el && ['inline', 'contents'].includes(getComputedStyle(el).display)) el = el.parentElement;
    return el;
  };
  /** Text nodes and, as null, the elements that end a word though they hold no text (a line break, an image, a form field). */
  const visibleTextNodes = () => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, {
      acceptNode: (n) => {
        if (n.nodeType === 1) {
          if (n.matches('script,style,noscript,template,title,svg')) return NodeFilter.FILTER_REJECT;
          return n.matches('br,img,input,select,textarea,button,hr') ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP;
        }
        return isClippedAway(n.parentElement) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
      },
    });
    const out = [];
    while (walker.nextNode()) out.push(walker.currentNode.nodeType === 3 ? walker.currentNode : null);
    return out;
  };
`;

/**
 * Every word of visible text that the browser laid out on more than one line. Words are found
 * across adjacent text nodes of the same block (so a <wbr> or an inline element inside a word does
 * not hide a split); each word's line boxes come from Range.getClientRects: boxes that do not
 * overlap vertically are separate lines.
 */
export const SPLIT_WORDS_SCRIPT = `(() => {
  ${VISIBLE_TEXT}
  const WORD = /[\\p{L}\\p{M}\\p{N}]/u;
  const runs = [];
  let run = null;
  let last = null;
  for (const node of visibleTextNodes()) {
    // A run continues into this node only from the very end of the previous text node, in the same block.
    if (run && !(node && last && run.endNode === last && run.endOffset === last.data.length && blockOf(node) === run.block)) {
      runs.push(run);
      run = null;
    }
    last = node;
    if (!node) continue;
    const text = node.data;
    for (let i = 0; i < text.length; i++) {
      if (WORD.test(text[i])) {
        if (!run) run = { startNode: node, startOffset: i, endNode: node, endOffset: i + 1, word: text[i], block: blockOf(node) };
        else {
          run.endNode = node;
          run.endOffset = i + 1;
          run.word += text[i];
        }
      } else if (run) {
        runs.push(run);
        run = null;
      }
    }
  }
  if (run) runs.push(run);
  const split = [];
  for (const r of runs) {
    if (r.word.length < 2) continue;
    const range = document.createRange();
    range.setStart(r.startNode, r.startOffset);
    range.setEnd(r.endNode, r.endOffset);
    const boxes = [...range.getClientRects()].filter((b) => b.width > 0 && b.height > 0).sort((a, b) => a.top - b.top);
    let lines = 0;
    let bottom = -Infinity;
    for (const b of boxes) {
      if (b.top >= bottom - 1) {
        lines += 1;
        bottom = b.bottom;
      } else bottom = Math.max(bottom, b.bottom);
    }
    if (lines > 1) {
      const around = (r.block ? r.block.textContent : r.word).replace(/\\s+/g, ' ').trim();
      const at = around.indexOf(r.word);
      split.push({ word: r.word, context: around.slice(Math.max(0, at - 30), at + r.word.length + 30), lines });
    }
  }
  return split;
})()`;

/** Opens every <details> element, so what it holds is laid out and read too. */
export const OPEN_DETAILS_SCRIPT = `document.querySelectorAll('details').forEach((d) => { d.open = true; })`;

/** A piece of visible text and the language the page marks it as (the nearest lang attribute). */
export interface PageString {
  text: string;
  lang: string;
  /** Where text may be in another language: the language switcher, or a problem's technical detail (the service's own English). */
  place?: 'switcher' | 'problem-detail';
}

/**
 * The text a person reads on the page, as the page's own words: every visible text node, the
 * title, and the labels assistive tools read (aria-label, title, alt, placeholder). Left out:
 * machine values (code, kbd, samp, pre: references, codes, addresses, the same in every language)
 * and the record's own words, which the page marks not to be translated (translate="no").
 */
export const PAGE_STRINGS_SCRIPT = `(() => {
  ${VISIBLE_TEXT}
  const langOf = (el) => (el.closest('[lang]') ? el.closest('[lang]').getAttribute('lang') : '');
  const placeOf = (el) => (el.closest('nav.langs') ? 'switcher' : el.closest('.error details') ? 'problem-detail' : undefined);
  const strings = [];
  for (const node of visibleTextNodes()) {
    if (!node) continue;
    const el = node.parentElement;
    if (el.closest('code,kbd,samp,pre,[translate=no]')) continue;
    const text = node.data.replace(/\\s+/g, ' ').trim();
    if (!text) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    if (![...range.getClientRects()].some((b) => b.width > 0 && b.height > 0)) continue;
    strings.push({ text, lang: langOf(el), place: placeOf(el) });
  }
  strings.push({ text: document.title, lang: document.documentElement.lang });
  for (const el of document.querySelectorAll('[aria-label],[title],[alt],[placeholder]')) {
    for (const name of ['aria-label', 'title', 'alt', 'placeholder']) if (el.hasAttribute(name)) strings.push({ text: el.getAttribute(name), lang: langOf(el), place: placeOf(el) });
  }
  return strings;
})()`;

/** The texts the page marks as the record's own words (translate="no"), as shown. */
export const RECORD_WORDS_SCRIPT = `[...document.querySelectorAll('main [translate=no]')].map((el) => el.textContent)`;
