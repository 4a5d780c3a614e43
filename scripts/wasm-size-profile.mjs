// What fills a wasm file, by crate and by module of this workspace's crates: `twiggy top` of a
// build that kept its function names, each function's bytes given to the crate (and module)
// that defines it — for `<T as Trait>::f`, T's crate. Trunk's release wasm has no names: run
// wasm-opt as trunk does, with -g, on wasm-bindgen's output first:
//   wasm-opt -O3 -g --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int \
//     --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
//     target/wasm-bindgen/release/hpo-playground_bg.wasm -o /tmp/main-named.wasm
//   node scripts/wasm-size-profile.mjs /tmp/main-named.wasm
// (cargo install twiggy). Prints Markdown tables: crates, then the workspace's modules.
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

const file = process.argv[2];
if (!file) throw new Error('usage: node scripts/wasm-size-profile.mjs FILE.wasm');
const twiggy = process.env.TWIGGY ?? join(homedir(), '.cargo', 'bin', 'twiggy');
const csv = execFileSync(twiggy, ['top', '-n', '1000000', '--format', 'csv', file], { maxBuffer: 1 << 28 }).toString();

// One CSV row: its name (quoted, with "" for ") and its shallow bytes.
const rows = csv.trim().split('\n').slice(1).map((line) => {
  const m = line.match(/^("(?:[^"]|"")*"|[^,]*),(\d+),/);
  return m && { name: m[1].replace(/^"|"$/g, '').replace(/""/g, '"'), bytes: Number(m[2]) };
}).filter(Boolean).filter((r) => !/^Σ|^\.\.\. and/.test(r.name));
// The names the profile needs are not shipped (trunk's build has none): left out of every share.
const isNames = (r) => /subsection|custom section/.test(r.name);
const names = rows.filter(isNames).reduce((s, r) => s + r.bytes, 0);
const code = rows.filter((r) => !isNames(r));

// The path a function is defined in: `<T as Trait>::f` → T's path, `a::b::f::h0123` → a::b::f.
const pathOf = (name) => {
  let n = name.replace(/::h[0-9a-f]{16}$/, '');
  while (n.startsWith('<')) n = n.slice(1);
  n = n.replace(/^(dyn |&mut |&|\*const |\*mut )/, '');
  return n.split(/[ <>(),]/)[0];
};
const total = code.reduce((s, r) => s + r.bytes, 0);
const groups = (key) => {
  const sums = new Map();
  for (const r of code) {
    const k = key(r);
    if (k) sums.set(k, (sums.get(k) ?? 0) + r.bytes);
  }
  return [...sums].sort((a, b) => b[1] - a[1]);
};
const isData = (r) => /^data segment|^data\[/.test(r.name);
// `core[c5930c85a12de822]` (the standard library's own build) counts as `core`.
const crateOf = (r) => isData(r) ? 'data (constants, strings)'
  : pathOf(r.name).includes('::') ? pathOf(r.name).split('::')[0].replace(/\[[0-9a-f]+\]$/, '') : 'unnamed (wasm-bindgen shims, std internals, …)';
const table = (title, list, n) => {
  console.log(`| ${title} | bytes | share |\n|---|---|---|`);
  for (const [k, b] of list.slice(0, n)) console.log(`| ${k} | ${b.toLocaleString('en')} | ${(100 * b / total).toFixed(1)} % |`);
  console.log('');
};
console.log(`${file}: ${total.toLocaleString('en')} bytes of code and data (and ${names.toLocaleString('en')} of names, not shipped)\n`);
table('crate', groups(crateOf), 25);
// This workspace's crates, by module two levels deep (hpo_web::app::results, hpo_engine::loaders).
const ours = (r) => {
  const p = pathOf(r.name).split('::');
  if (!['hpo_web', 'hpo_engine', 'hpo_protocol', 'hpo_playground'].includes(p[0])) return null;
  const depth = p[0] === 'hpo_web' ? 3 : 2;
  return p.slice(0, Math.min(depth, p.length - 1)).join('::').replace(/::__component_\w+$/, '');
};
table('module of this workspace', groups(ours), 40);
