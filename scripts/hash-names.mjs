// Trunk post-build hook (build and serve): names the files trunk leaves unhashed (the two wasm
// modules it builds as "worker" links — the first visit's landing and the Web Workers' — with
// their glue, the workers' loader, boot.js) by their content's hash, as trunk names the app's
// own, so that every file but index.html and sw.js can be cached for good (sw.js serves a hashed
// name from its cache; a host sends it as immutable). index.html refers to the new names: boot.js
// by its <script>, the wasm modules and their glue in <meta name="build-files">, which boot.js
// reads to start the modules and the workers. The names trunk hashes itself (the app's module and
// glue, the stylesheet) are padded to 16 hex digits, since trunk drops leading zeros.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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

// The app's two files, which trunk named `hpo-playground-<hash>.js` and `…_bg.wasm`. Trunk writes
// its 64-bit hash in hex without leading zeros (1 build in 16 gets 15 digits or fewer), so the
// hash is padded here to the 16 digits every other hashed name has and sw.js looks for.
const trunkNamed = (pattern) => {
  const found = readdirSync(dir).filter((name) => pattern.test(name));
  if (found.length !== 1) throw new Error(`expected one file like ${pattern} in ${dir}, found ${found.join(', ') || 'none'}`);
  const [, stem, hash, tail] = found[0].match(pattern);
  const to = `${stem}-${hash.padStart(16, '0')}${tail}`;
  if (to !== found[0]) renameSync(join(dir, found[0]), join(dir, to));
  return `/${to}`;
};
const file = join(dir, 'index.html');
let html = readFileSync(file, 'utf8');
// The stylesheet, which trunk names `style-<hash>.css` the same way: padded too (a shorter name
// was served and cached as an unhashed file), and index.html's <link> follows it.
const STYLE = /^(style)-([0-9a-f]{1,16})(\.css)$/;
const trunkStyle = readdirSync(dir).find((name) => STYLE.test(name));
const style = trunkNamed(STYLE).slice(1);
if (!html.includes(`${trunkStyle}"`)) throw new Error(`index.html does not link the stylesheet ${trunkStyle}`);
html = html.replaceAll(`${trunkStyle}"`, `${style}"`);
// The keys boot.js reads, each with its file.
const files = Object.entries({
  'app-glue': trunkNamed(/^(hpo-playground)-([0-9a-f]{1,16})(\.js)$/), 'app-wasm': trunkNamed(/^(hpo-playground)-([0-9a-f]{1,16})(_bg\.wasm)$/),
  'landing-glue': hashed('landing.js'), 'landing-wasm': hashed('landing_bg.wasm'),
  'worker-loader': hashed('worker-loader.js'), 'worker-glue': hashed('worker.js'), 'worker-wasm': hashed('worker_bg.wasm'),
}).map(([key, name]) => `${key}=${name}`).join(' ');

const boot = hashed('boot.js');
if (!html.includes('src="boot.js"')) throw new Error('index.html has no <script src="boot.js">');
html = html.replace('src="boot.js"', `src="${boot}"`);
// The app's own <link data-trunk>, which trunk leaves when it injects nothing.
html = html.replace(/\n\s*<link data-trunk rel="rust"[^>]*>/g, '');
const viewport = '<meta name="viewport"';
if (!html.includes(viewport)) throw new Error('index.html has no viewport <meta> to put the build files after');
html = html.replace(viewport, `<meta name="build-files" content="${files}">\n  ${viewport}`);
writeFileSync(file, html);
