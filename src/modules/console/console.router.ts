import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import { AppError } from '../../lib/errors.js';

/**
 * The admin console (docs/console.md): a browser app over the existing admin API, served from
 * the service's own files so it works at a venue without internet. Its files live in the
 * top-level `console/` folder (beside `src/` and `dist/`, so `npm start` and the built service
 * find it alike): `console/index.html` is the one page, `console/assets/*` its plain ES modules,
 * style sheet and icon (no build step). The Socket.IO client is the server package's own copy.
 * Not under /api and not in the OpenAPI document.
 */
export const CONSOLE_MOUNT_PATH = '/console';

/**
 * The policy of every console response (page, assets, their 404s). Only the service's own origin:
 * no inline script or style, images also from data:/blob: (the venue QR code is a blob: URL).
 * No `upgrade-insecure-requests`: a laptop at the venue may reach the service over plain HTTP.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The Socket.IO client as an ES module (and its source map), from the socket.io package the service runs. */
const SOCKET_IO_CLIENT_FILES = ['socket.io.esm.min.js', 'socket.io.esm.min.js.map'];

const consoleDir = () => path.resolve(__dirname, '..', '..', '..', 'console');

/** Every asset name → its file. Read when the router is built; an unknown name is a 404. */
function assetFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const assetsDir = path.join(consoleDir(), 'assets');
  for (const entry of readdirSync(assetsDir, { withFileTypes: true })) {
    if (entry.isFile()) files.set(entry.name, path.join(assetsDir, entry.name));
  }
  const clientDir = path.join(path.dirname(createRequire(__filename).resolve('socket.io/package.json')), 'client-dist');
  for (const name of SOCKET_IO_CLIENT_FILES) files.set(name, path.join(clientDir, name));
  return files;
}

const withConsolePolicy: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  // the metrics' route label: /console/assets/*file, /console/{*view} (src/lib/metrics.ts)
  res.locals.routeMountPath = CONSOLE_MOUNT_PATH;
  next();
};

/**
 * GET /console/assets/<file>: a console asset (404 envelope "Not found" for any other name).
 * GET /console and every other path below it: the page (public; its data stays behind the
 * admin API); the path picks the view in the browser.
 */
export function createConsoleRouter(): Router {
  const page = readFileSync(path.join(consoleDir(), 'index.html'), 'utf8');
  const assets = assetFiles();
  const router = Router();
  router.use(withConsolePolicy);

  router.get('/assets/*file', (req, res) => {
    const name = ([] as string[]).concat(req.params.file as string | string[]).join('/');
    const file = assets.get(name);
    if (!file) throw new AppError('NOT_FOUND');
    // revalidated on every load (ETag), so a new version of the service is picked up at once
    res.set('Cache-Control', 'no-cache');
    res.sendFile(file);
  });

  router.get('/{*view}', (_req, res) => {
    res.set('Cache-Control', 'no-cache');
    res.type('html').send(page);
  });
  return router;
}
