import { renderSVG } from 'uqr';
import { escapeHtml, raw, type SafeHtml } from './html';

/** Drawn codes by address: encoding one takes about 2 ms, and a receipt's address never changes. */
const drawn = new Map<string, string>();
const DRAWN_KEPT = 256;

/**
 * A QR code of a page's address, drawn on the server as inline SVG (uqr), so no image service ever
 * learns which receipt was opened. The label gives the address in words for assistive tools.
 */
export function qrCode(url: string, label: string): SafeHtml {
  let svg = drawn.get(url);
  if (svg === undefined) {
    svg = renderSVG(url, { border: 2, ecc: 'M' });
    if (!svg.startsWith('<svg ')) throw new Error('the QR renderer returned no SVG');
    if (drawn.size >= DRAWN_KEPT) drawn.delete(drawn.keys().next().value!);
    drawn.set(url, svg);
  }
  return raw(svg.replace('<svg ', `<svg role="img" aria-label="${escapeHtml(label)}" focusable="false" `));
}
