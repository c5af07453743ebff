/**
 * (a) of `npm run bench:http`: bare Express 5 answering a small JSON document, the ceiling of
 * the framework on this machine; and (a′) the same for a big body: the bytes of the service's
 * details answer (DETAILS_BODY_FILE), sent as the service sends a cached answer (a Buffer with
 * its ETag), and (a″) those bytes gzipped; and (a‴) the hello JSON with helmet()'s headers, as
 * the service sends them on every answer (src/app.ts). Runs in its own process; PORT from the environment.
 */
import { readFileSync } from 'node:fs';
import { constants, gzipSync } from 'node:zlib';
import express from 'express';
import helmet from 'helmet';

const app = express();
app.disable('x-powered-by');
app.get('/hello', (_req, res) => {
  res.json({ success: true, data: { hello: 'world' } });
});
// (a‴): the part of the gap to (a) that is the security headers alone (12 more headers per answer)
app.get('/hello-helmet', helmet(), (_req, res) => {
  res.json({ success: true, data: { hello: 'world' } });
});
const detailsFile = process.env.DETAILS_BODY_FILE;
if (detailsFile) {
  const body = readFileSync(detailsFile);
  app.get('/details', (_req, res) => {
    res.status(200).set('Content-Type', 'application/json; charset=utf-8').set('ETag', '"bench-details"');
    res.send(body);
  });
  // (a″): the same bytes gzipped once, as the service keeps a large held answer (src/lib/compressed-body.ts)
  const gzipped = gzipSync(body, { level: constants.Z_BEST_SPEED });
  app.get('/details.gz', (_req, res) => {
    res.status(200).set('Content-Type', 'application/json; charset=utf-8').set('ETag', '"bench-details"');
    res.set('Vary', 'Accept-Encoding').set('Content-Encoding', 'gzip');
    res.send(gzipped);
  });
}
app.listen(Number(process.env.PORT), '127.0.0.1');
