// The post-build hook that names the build's files (scripts/hash-names.mjs), run on a staging
// directory as trunk leaves it. Trunk writes the app's hash in hex without leading zeros, so one
// build in 16 names it with fewer than 16 digits; the hook pads it to the 16 digits sw.js and the
// server look for (a CI build failed on such a name).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const UNHASHED = ['boot.js', 'landing.js', 'landing_bg.wasm', 'worker-loader.js', 'worker.js', 'worker_bg.wasm'];

function stagedBuild(appHash) {
  const dir = mkdtempSync(join(tmpdir(), 'hpo-stage-'));
  copyFileSync('index.html', join(dir, 'index.html'));
  for (const name of [...UNHASHED, `hpo-playground-${appHash}.js`, `hpo-playground-${appHash}_bg.wasm`]) {
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
      assert.equal(names.length, UNHASHED.length + 2);
      for (const name of names) assert.match(name, /-[0-9a-f]{16}(_bg)?\.[a-z0-9]+$/, name);
      const meta = readFileSync(join(dir, 'index.html'), 'utf8').match(/<meta name="build-files" content="([^"]*)">/);
      assert.ok(meta, 'index.html names the build files');
      const named = meta[1].split(' ').map((pair) => pair.split('=')[1].slice(1));
      assert.deepEqual(named.sort(), names.filter((name) => !name.startsWith('boot-')).sort());
      assert.ok(named.includes(`hpo-playground-${appHash.padStart(16, '0')}_bg.wasm`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
