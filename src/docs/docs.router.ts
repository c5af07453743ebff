import { Router } from 'express';
import { buildOpenApiDocument } from './openapi.js';

export const docsRouter = Router();

const document = buildOpenApiDocument();

/** The API reference as an OpenAPI 3.1 document (public). */
docsRouter.get('/docs/openapi.json', (_req, res) => {
  res.json(document);
});
