/**
 * The pages' one inline style block. Its SHA-256, which the pages' Content-Security-Policy allows,
 * is computed at build time (functions/generated/page-style.ts, `npm run generate`), so a page
 * function hashes nothing to start.
 */

/** Timeline rows a printed page keeps (the newest); the page says so on paper and its QR code opens the rest. */
export const PRINTED_TIMELINE_ROWS = 8;

export const PAGE_STYLE = `
:root{color-scheme:light;--ink:#1b1f24;--muted:#4a5560;--line:#d5dbe1;--bg:#f6f8fa;--ok:#0b6b2f;--warn:#8a5300;--bad:#a01616;--info:#1f4f99}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:#fff;overflow-wrap:break-word}
a{color:var(--info)}
a:focus,button:focus,input:focus,summary:focus{outline:3px solid #f5a623;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px}
header.site{background:var(--ink);color:#fff;padding:.75rem 1rem}
header.site nav{max-width:58rem;margin:0 auto}
header.site a{color:#fff;margin-right:1rem}
header.site .name{font-weight:700;margin-right:2rem}
main{max-width:60rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
.card{border:1px solid var(--line);border-radius:6px;padding:1rem;background:var(--bg);margin:1rem 0}
.card h2{margin-top:0}
.status{display:inline-block;font-weight:700;padding:.15rem .6rem;border-radius:4px;border:2px solid currentColor}
.status.ok{color:var(--ok)}.status.warn{color:var(--warn)}.status.bad{color:var(--bad)}.status.info{color:var(--info)}
dl.facts{display:grid;grid-template-columns:minmax(9rem,max-content) 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;min-width:0}
ul.checks{margin:0;padding-left:1.1rem}
details.codes{margin-top:.75rem}details.codes summary{cursor:pointer;color:var(--info);font-weight:600}details.codes dl{margin-top:.5rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
caption{text-align:left;color:var(--muted);padding:.25rem 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.95em}
td.path code{font-size:.85em}
form.lookup{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
form.lookup label{display:block;font-weight:600;width:100%}
form.lookup input{font:inherit;padding:.45rem .6rem;border:2px solid var(--muted);border-radius:4px;min-width:min(16rem,100%);flex:1}
form.lookup button{font:inherit;font-weight:600;padding:.45rem 1.2rem;border:0;border-radius:4px;background:var(--info);color:#fff;cursor:pointer}
.hint,.muted{color:var(--muted)}
.error{border-left:4px solid var(--bad);padding:.5rem 1rem;background:#fff5f5}
.scroll{overflow-x:auto}
td time{white-space:nowrap}
nav.langs{float:right}nav.langs a{margin:0 0 0 .75rem}nav.langs a[aria-current]{font-weight:700;text-decoration:none}
@media (max-width:40rem){
dl.facts{grid-template-columns:1fr;gap:0}dl.facts dd{margin-bottom:.5rem}
header.site .name{display:block;margin-bottom:.25rem}
td time{white-space:normal}
table.rows,table.rows tbody,table.rows tr,table.rows td,table.rows th{display:block}
table.rows thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
nav.langs{float:none;text-align:right;margin-bottom:.5rem}
table.rows tr{border-bottom:1px solid var(--line);padding:.4rem 0}
table.rows td,table.rows th{border:0;padding:.1rem 0}
table.rows caption{display:block}
}
.print-only{display:none}
footer{max-width:60rem;margin:2rem auto;padding:1rem;color:var(--muted);border-top:1px solid var(--line);font-size:.9rem}
.device [data-verification]{border-left:6px solid var(--info);padding:.5rem 1rem;background:var(--bg);font-weight:600}
.device [data-verification=verified]{border-color:var(--ok)}.device [data-verification=failed]{border-color:var(--bad)}
.share{display:flex;flex-wrap:wrap;gap:1rem;align-items:center}.share svg{width:9rem;height:9rem;flex:none}
@media print{@page{size:auto;margin:12mm}
html,body{font-size:11px;line-height:1.3}header.site,footer,.skip,nav.langs,form.lookup,#device-details,details.codes,.noprint{display:none}
main{max-width:none;padding:0}h1{font-size:15px;margin:0 0 .25rem}h2{font-size:12px;margin:.5rem 0 .2rem;padding:0;break-after:avoid}
.card{padding:.35rem .5rem;margin:.35rem 0;break-inside:avoid}section{break-inside:avoid}table{margin:.2rem 0}th,td{padding:.05rem .3rem}caption{padding:0}
tbody tr:nth-child(n+${PRINTED_TIMELINE_ROWS + 1}){display:none}.print-only{display:block}
.scroll{overflow:visible}a{color:inherit;text-decoration:none}.share svg{width:24mm;height:24mm}p{margin:.3rem 0}
.device [data-verification]{padding:.2rem .5rem}.status{border-width:1px;padding:0 .3rem}}
`.trim();

/**
 * What the API reference page adds for Swagger UI on a phone, as a second style block allowed by
 * its own hash (only that page's policy names it). Swagger UI lets operation ids, paths and
 * summaries break between any two letters (word-break: break-word) in a row that leaves them a
 * few pixels; here the operation id gets a line of its own and words break only where Swagger UI
 * put a break opportunity (a zero-width space before each slash of a path).
 */
export const REFERENCE_STYLE = `
@media (max-width:40rem){
main .swagger-ui .wrapper{padding:0}
main .swagger-ui .opblock-tag{padding:10px 4px;font-size:20px}
main .swagger-ui .opblock .opblock-summary-control{flex-wrap:wrap;row-gap:4px}
main .swagger-ui .opblock .opblock-summary-path,main .swagger-ui .opblock .opblock-summary-description,main .swagger-ui .opblock .opblock-summary-operation-id{word-break:normal;overflow-wrap:normal}
main .swagger-ui .opblock .opblock-summary-operation-id{flex-basis:100%;order:3;font-size:13px;padding:0 4px}
}
`.trim();
