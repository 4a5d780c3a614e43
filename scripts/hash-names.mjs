// Trunk post-build hook (build and serve): names the files trunk copies as they are (the worker's
// glue and wasm, its loader, boot.js) by their content's hash, as trunk names the page's own, so
// that every file but index.html and sw.js can be cached for good (sw.js serves a hashed name from
// its cache; a host sends it as immutable). index.html refers to the new names: boot.js by its
// <script>, the worker's files in <meta name="worker-files">, which boot.js reads.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('run by trunk (TRUNK_STAGING_DIR is not set)');

// `worker_bg.wasm` → `/worker_bg-0123456789abcdef.wasm` (the 16 hex digits sw.js looks for).
const hashed = (name) => {
  const hash = createHash('sha256').update(readFileSync(join(dir, name))).digest('hex').slice(0, 16);
  const dot = name.lastIndexOf('.');
  const to = `${name.slice(0, dot)}-${hash}${name.slice(dot)}`;
  renameSync(join(dir, name), join(dir, to));
  return `/${to}`;
};

const file = join(dir, 'index.html');
let html = readFileSync(file, 'utf8');
const worker = `loader=${hashed('worker-loader.js')} glue=${hashed('worker.js')} wasm=${hashed('worker_bg.wasm')}`;
const boot = hashed('boot.js');
if (!html.includes('src="boot.js"')) throw new Error('index.html has no <script src="boot.js">');
html = html.replace('src="boot.js"', `src="${boot}"`);
const viewport = '<meta name="viewport"';
if (!html.includes(viewport)) throw new Error('index.html has no viewport <meta> to put the worker files after');
html = html.replace(viewport, `<meta name="worker-files" content="${worker}">\n  ${viewport}`);
writeFileSync(file, html);
