import { createRequire } from 'node:module';
import path from 'node:path';
import { Router } from 'express';
import { AppError } from '../lib/errors.js';
import { DOCS_ASSETS } from './docs.openapi.js';
import { buildAsyncApiDocument } from './asyncapi.js';
import { buildOpenApiDocument } from './openapi.js';

/** The document is the same for every app of the process: built on first use. */
let document: Record<string, unknown> | undefined;
const openApiDocument = () => (document ??= buildOpenApiDocument() as Record<string, unknown>);
let asyncApi: Record<string, unknown> | undefined;
const asyncApiDocument = () => (asyncApi ??= buildAsyncApiDocument((openApiDocument().info as { version: string }).version));
const assets = new Set<string>(DOCS_ASSETS);
const assetsDir = () => path.dirname(createRequire(__filename).resolve('swagger-ui-dist/package.json'));

/**
 * The reference page: Swagger UI from the swagger-ui-dist package, every file served from
 * here (no CDN: venues may be offline) and no inline script, so helmet's strict CSP stays.
 */
const page = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>WCS partner service API</title>
    <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
    <link rel="icon" type="image/png" href="/api/docs/assets/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/api/docs/init.js"></script>
  </body>
</html>
`;

const init = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/docs/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/** The reference page, its assets and the OpenAPI document (public). */
export function createDocsRouter(): Router {
  const router = Router();
  router.get('/docs', (_req, res) => {
    res.type('html').send(page);
  });

  router.get('/docs/init.js', (_req, res) => {
    res.type('text/javascript').send(init);
  });

  router.get('/docs/assets/:file', (req, res) => {
    const file = String(req.params.file);
    if (!assets.has(file)) throw new AppError('NOT_FOUND');
    res.set('Cache-Control', 'public, max-age=86400');
    res.sendFile(path.join(assetsDir(), file));
  });

  /** The API reference as an OpenAPI 3.1 document (public). */
  router.get('/docs/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });

  /** The real-time channel (Socket.IO events) as an AsyncAPI 3.0 document (public). */
  router.get('/docs/asyncapi.json', (_req, res) => {
    res.json(asyncApiDocument());
  });
  return router;
}
