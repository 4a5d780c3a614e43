// Trunk post-build hook (build and serve): the page runs no inline script, so its Content-Security-Policy can
// forbid inline script. Under `trunk serve` trunk writes its autoreload script inline in
// index.html (boot.js starts the wasm modules: trunk writes no start-up of its own); this moves
// any inline script to a file named by its content's hash and adds the policy as a <meta> tag
// (a static host may not let us set headers).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('run by trunk (TRUNK_STAGING_DIR is not set)');
const file = join(dir, 'index.html');
let html = readFileSync(file, 'utf8');

// Every inline script (under `trunk serve`, its autoreload script).
html = html.replace(/<script((?:\s+(?!src=)[^>]*)?)>([\s\S]*?)<\/script>/g, (whole, attrs, body) => {
  if (/\bsrc=/.test(attrs) || !body.trim()) return whole;
  const name = `start-${createHash('sha256').update(body).digest('hex').slice(0, 16)}.js`;
  writeFileSync(join(dir, name), body);
  return `<script${attrs} src="/${name}"></script>`;
});
if (/<script(?![^>]*\bsrc=)[^>]*>/.test(html)) throw new Error('index.html still has an inline script');

// 'wasm-unsafe-eval' lets WebAssembly compile and nothing else eval; workers start from
// 'self' only (worker-loader.js); data may come from the site or any https: address (a
// data=url: link, e.g. the copula paper's tables; the bytes are checked by SHA-256); styles
// may be inline (Leptos sets style attributes); data: and blob: images are the PNG exports.
const policy = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self' https:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
html = html.replace('<meta charset="utf-8">', `<meta charset="utf-8">\n  <meta http-equiv="Content-Security-Policy" content="${policy}">`);
if (!html.includes('Content-Security-Policy')) throw new Error('no <meta charset="utf-8"> to put the policy after');
writeFileSync(file, html);
