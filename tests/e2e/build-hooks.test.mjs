// The post-build hook that names the build's files (scripts/hash-names.mjs), run on a staging
// directory as trunk leaves it. Trunk writes its hashes (the app's and the stylesheet's) in hex
// without leading zeros, so one build in 16 names a file with fewer than 16 digits; the hook pads
// them to the 16 digits sw.js and the server look for (a CI build failed on such a name).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const UNHASHED = ['boot.js', 'landing.js', 'landing_bg.wasm', 'worker-loader.js', 'worker.js', 'worker_bg.wasm'];

function stagedBuild(appHash) {
  const dir = mkdtempSync(join(tmpdir(), 'hpo-stage-'));
  // The page as trunk writes it: its stylesheet linked under trunk's name.
  const page = readFileSync('index.html', 'utf8').replace('</head>', `  <link rel="stylesheet" href="/style-${appHash}.css" integrity="sha384-x"/>\n</head>`);
  writeFileSync(join(dir, 'index.html'), page);
  for (const name of [...UNHASHED, `hpo-playground-${appHash}.js`, `hpo-playground-${appHash}_bg.wasm`, `style-${appHash}.css`]) {
    writeFileSync(join(dir, name), `contents of ${name}`);
  }
  execFileSync('node', ['scripts/hash-names.mjs'], { env: { ...process.env, TRUNK_STAGING_DIR: dir } });
  return dir;
}

for (const appHash of ['990f87c39d390f77', 'abc', '0']) {
  test(`the build's files get 16-digit hashed names when trunk's hash is ${appHash}`, () => {
    const dir = stagedBuild(appHash);
    try {
      const names = readdirSync(dir).filter((name) => name !== 'index.html');
      assert.equal(names.length, UNHASHED.length + 3);
      for (const name of names) assert.match(name, /-[0-9a-f]{16}(_bg)?\.[a-z0-9]+$/, name);
      const meta = readFileSync(join(dir, 'index.html'), 'utf8').match(/<meta name="build-files" content="([^"]*)">/);
      assert.ok(meta, 'index.html names the build files');
      const named = meta[1].split(' ').map((pair) => pair.split('=')[1].slice(1));
      assert.deepEqual(named.sort(), names.filter((name) => !/^(boot|style)-/.test(name)).sort());
      assert.ok(named.includes(`hpo-playground-${appHash.padStart(16, '0')}_bg.wasm`));
      const html = readFileSync(join(dir, 'index.html'), 'utf8');
      assert.ok(html.includes(`href="/style-${appHash.padStart(16, '0')}.css"`), 'index.html links the renamed stylesheet');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
