// Trunk post-build hook, the last: writes `NAME.gz` (gzip -9) and `NAME.br` (brotli, quality 11)
// beside every text or wasm file of the site, so that a host sends them as they are
// (`Content-Encoding`) without compressing on each request. The real tables under shared/ are
// zip files already and are left alone.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR ?? process.argv[2];
if (!dir) throw new Error('run by trunk (TRUNK_STAGING_DIR is not set) or give the site folder');
const COMPRESSIBLE = new Set(['.html', '.js', '.wasm', '.css', '.csv', '.json', '.svg']);

const files = (folder) => readdirSync(folder).flatMap((name) => {
  const path = join(folder, name);
  if (statSync(path).isDirectory()) return relative(dir, path) === 'shared' ? [] : files(path);
  return [path];
});

for (const path of files(dir)) {
  if (!COMPRESSIBLE.has(extname(path))) continue;
  const bytes = readFileSync(path);
  writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
  writeFileSync(`${path}.br`, brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  }));
}
