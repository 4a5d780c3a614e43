// Trunk post-build hook, after hash-names.mjs and csp.mjs (which name the last hashed files):
// writes the names of this build's hashed files into sw.js, whose worker deletes every other
// hashed file from its cache when it takes over (an older build's). sw.js then differs from
// build to build, so a browser installs the new worker on the next visit.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('run by trunk (TRUNK_STAGING_DIR is not set)');

// As sw.js's HASHED: `name-0123456789abcdef.ext`, trunk's `name-0123456789abcdef_bg.wasm`.
const HASHED = /-[0-9a-f]{16}(_bg)?\.[a-z0-9]+$/;
const names = readdirSync(dir).filter((name) => HASHED.test(name)).sort();
if (!names.some((name) => name.endsWith('.wasm'))) throw new Error(`no hashed wasm in ${dir}: ${names.join(', ')}`);

const file = join(dir, 'sw.js');
const placeholder = 'const BUILD_FILES = [];';
const source = readFileSync(file, 'utf8');
if (!source.includes(placeholder)) throw new Error(`sw.js has no '${placeholder}' to fill`);
writeFileSync(file, source.replace(placeholder, `const BUILD_FILES = ${JSON.stringify(names)};`));
