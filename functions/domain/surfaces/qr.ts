import { renderSVG } from 'uqr';
import { escapeHtml, raw, type SafeHtml } from './html';

/**
 * A QR code of a page's address, drawn on the server as inline SVG (uqr), so no image service ever
 * learns which receipt was opened. The label gives the address in words for assistive tools.
 */
export function qrCode(url: string, label: string): SafeHtml {
  const svg = renderSVG(url, { border: 2, ecc: 'M' });
  if (!svg.startsWith('<svg ')) throw new Error('the QR renderer returned no SVG');
  return raw(svg.replace('<svg ', `<svg role="img" aria-label="${escapeHtml(label)}" focusable="false" `));
}
