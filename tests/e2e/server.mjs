// A static file server for the built site (dist/), on loopback only, serving it as a real host
// should (README, "Hosting"): the precompressed copy the build wrote (NAME.br or NAME.gz, as the
// browser accepts) with `Content-Encoding`; files named by their content's hash as immutable for a
// year; everything else (index.html, sw.js, the bundled data) `no-cache` with an ETag, so that a
// revalidation moves no body (304).
//
// Every request is logged (`requests`: path, status, bytes sent, done once answered), which the
// tests count. With
// `throttle` ({ bitsPerSecond, latencyMs }) every answer waits the latency and then shares one
// pipe of that speed with all others: a slow network applied to every request, the workers' and
// the service worker's included (the browser's own network emulation misses those).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.json': 'application/json', '.csv': 'text/csv', '.zip': 'application/zip',
  '.svg': 'image/svg+xml', '.png': 'image/png',
};
// trunk's and scripts/hash-names.mjs's names: `name-0123456789abcdef.ext` (as sw.js).
const HASHED = /-[0-9a-f]{16}(_bg)?\.[a-z0-9]+$/;

// One pipe shared by every answer: `send` writes `bytes` after the latency, in slices, each when
// the pipe is free of the slices before it (of this answer and of every other).
function pipe(throttle) {
  if (!throttle) return (res, bytes) => res.end(bytes);
  const bytesPerMs = throttle.bitsPerSecond / 8 / 1000;
  let freeAt = 0;
  const wait = (ms) => new Promise((ok) => setTimeout(ok, Math.max(0, ms)));
  return async (res, bytes) => {
    await wait(throttle.latencyMs);
    const SLICE = 16 * 1024;
    for (let at = 0; at < bytes.length; at += SLICE) {
      const slice = bytes.subarray(at, at + SLICE);
      freeAt = Math.max(Date.now(), freeAt) + slice.length / bytesPerMs;
      await wait(freeAt - Date.now());
      res.write(slice);
    }
    res.end();
  };
}

// `extra` maps a path (e.g. '/mirror/runs.csv') to the bytes served there, beside the site;
// `hits` counts the requests for each of them.
export async function serve(root, port = 0, extra = {}, { throttle } = {}) {
  const hits = {};
  const requests = [];
  const send = pipe(throttle);
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const logged = { path, status: 200, bytes: 0, encoding: null };
    requests.push(logged);
    const answer = async (status, headers, body = Buffer.alloc(0)) => {
      logged.status = status;
      logged.bytes = body.length;
      res.writeHead(status, { ...headers, 'content-length': body.length });
      await send(res, body);
    };
    try {
      if (path in extra) {
        hits[path] = (hits[path] ?? 0) + 1;
        await answer(200, { 'content-type': 'application/octet-stream' }, Buffer.from(extra[path]));
        return;
      }
      let file = normalize(join(root, path));
      if (!file.startsWith(normalize(root))) { await answer(403, {}); return; }
      let info = await stat(file).catch(() => null);
      if (info?.isDirectory()) { file = join(file, 'index.html'); info = await stat(file); }
      if (!info) throw new Error('not found');
      const headers = { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', vary: 'accept-encoding' };
      if (HASHED.test(file)) {
        headers['cache-control'] = 'public, max-age=31536000, immutable';
      } else {
        headers['cache-control'] = 'no-cache';
        headers.etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
        if (req.headers['if-none-match'] === headers.etag) { await answer(304, headers); return; }
      }
      const accepted = req.headers['accept-encoding'] ?? '';
      for (const [encoding, suffix] of [['br', '.br'], ['gzip', '.gz']]) {
        if (!new RegExp(`\\b${encoding}\\b`).test(accepted)) continue;
        const body = await readFile(file + suffix).catch(() => null);
        if (body) {
          logged.encoding = encoding;
          await answer(200, { ...headers, 'content-encoding': encoding }, body);
          return;
        }
      }
      await answer(200, headers, await readFile(file));
    } catch {
      if (!res.headersSent) await answer(404, {}, Buffer.from('not found'));
    } finally {
      logged.done = true;
    }
  });
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  return { server, url: `http://127.0.0.1:${server.address().port}/`, hits, requests };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await serve(process.argv[2] ?? 'dist', Number(process.argv[3] ?? 8080));
  console.log(`serving on ${url}`);
}
