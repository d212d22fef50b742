/**
 * The audit page's own style and script (html.ts), inline: the page makes no request. The page's
 * Content-Security-Policy allows exactly these two by their SHA-256, so no other script or style
 * runs even if log text ever escaped its escaping.
 */
import { createHash } from 'node:crypto';

export const PAGE_CSS = `
:root { color-scheme: light; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; }
body { margin: 0 auto; max-width: 1100px; padding: 16px 24px 48px; }
h1 { font-size: 20px; margin: 8px 0; } h2 { font-size: 16px; margin: 24px 0 8px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f8fa; padding: 8px; border-radius: 6px; margin: 4px 0; }
.chain { padding: 10px 12px; border-radius: 6px; margin: 8px 0; border: 2px solid; }
.chain.verified { background: #dafbe1; border-color: #1a7f37; }
.chain.incomplete { background: #fff8c5; border-color: #9a6700; }
.chain.failed, .chain.none { background: #ffebe9; border-color: #cf222e; }
.badge.unverified { background: #ffebe9; color: #82071e; border: 1px solid #cf222e; }
.outcome { padding: 8px 12px; border-radius: 6px; background: #dafbe1; }
.outcome.error { background: #ffebe9; }
.setting { color: #59636e; margin: 4px 0 0; }
.findings li { margin: 2px 0; } .code { font-weight: 600; }
.filters { display: flex; gap: 16px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
#timeline { display: flex; flex-wrap: wrap; gap: 3px; list-style: none; padding: 0; margin: 8px 0; }
#timeline li { min-width: 28px; height: 28px; border-radius: 4px; display: flex; align-items: center; justify-content: center; font-size: 11px; }
#timeline a { color: inherit; text-decoration: none; display: block; width: 100%; text-align: center; }
.allow { background: #dafbe1; } .deny { background: #ffcecb; } .none { background: #eaeef2; }
.asked { outline: 2px dashed #9a6700; outline-offset: -2px; }
#calls { list-style: none; padding: 0; }
#calls > li { border: 1px solid #d1d9e0; border-radius: 6px; margin: 6px 0; }
#calls summary { cursor: pointer; padding: 6px 10px; }
#calls .detail { padding: 0 12px 10px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: 12px; margin-right: 6px; }
.sub { color: #59636e; font-size: 12px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 6px 0; }
dt { color: #59636e; } dd { margin: 0; }
.diff .add { color: #116329; background: #dafbe1; } .diff .del { color: #82071e; background: #ffebe9; }
.diff .hunk { color: #0550ae; } .diff span { display: block; }
[hidden] { display: none !important; }
`;

/** Filters by tool and decision: hides the calls (and their timeline entries) that do not match. */
export const PAGE_SCRIPT = `
(function () {
  var tool = document.getElementById('filter-tool');
  var decision = document.getElementById('filter-decision');
  var count = document.getElementById('shown-count');
  function matches(element) {
    var byTool = tool.value === '' || element.getAttribute('data-tool') === tool.value;
    var wanted = decision.value;
    var byDecision = wanted === '' ||
      (wanted === 'ask' ? element.getAttribute('data-asked') === 'true' : element.getAttribute('data-decision') === wanted);
    return byTool && byDecision;
  }
  function apply() {
    var shown = 0;
    var items = document.querySelectorAll('[data-call]');
    for (var i = 0; i < items.length; i++) {
      var ok = matches(items[i]);
      items[i].hidden = !ok;
      if (ok && items[i].parentElement.id === 'calls') shown++;
    }
    count.textContent = String(shown);
  }
  tool.addEventListener('change', apply);
  decision.addEventListener('change', apply);
})();
`;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** Nothing loads or runs but the page's own style and script; no form, no base, no frame. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src ${sha256(PAGE_CSS)}`,
  `script-src ${sha256(PAGE_SCRIPT)}`,
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
].join('; ');
