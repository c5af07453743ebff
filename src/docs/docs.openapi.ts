import { operation, pathParam } from './openapi-helpers.js';

/** The reference itself: the page, its assets and this document. */
export const DOCS_ASSETS = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
] as const;

const any = { type: 'object', additionalProperties: true };

export const docsOpenApi: Record<string, unknown> = {
  '/docs': {
    get: operation('get', {
      tags: ['docs'],
      summary: 'The interactive API reference (Swagger UI, served with all its assets by the service; no CDN)',
      access: 'public',
      ok: { '200': { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
    }),
  },
  '/docs/openapi.json': {
    get: operation('get', {
      tags: ['docs'],
      summary: 'This document (OpenAPI 3.1)',
      access: 'public',
      ok: {
        '200': {
          description: 'The OpenAPI document',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['openapi', 'info', 'paths', 'components'],
                properties: {
                  openapi: { const: '3.1.0' },
                  info: any,
                  servers: { type: 'array', items: any },
                  tags: { type: 'array', items: any },
                  components: any,
                  security: { type: 'array', items: any },
                  paths: any,
                  'x-socket-io': any,
                },
              },
            },
          },
        },
      },
    }),
  },
  '/docs/asyncapi.json': {
    get: operation('get', {
      tags: ['docs'],
      summary: 'The real-time channel (Socket.IO events, rooms and payloads) as an AsyncAPI 3.0 document',
      description: 'Generated from the same declarations as the `x-socket-io` section of this document; consumable by AsyncAPI tools and code generators.',
      access: 'public',
      ok: {
        '200': {
          description: 'The AsyncAPI document',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['asyncapi', 'info', 'channels', 'operations', 'components'],
                properties: {
                  asyncapi: { const: '3.0.0' },
                  info: any,
                  defaultContentType: { const: 'application/json' },
                  servers: any,
                  channels: any,
                  operations: any,
                  components: any,
                },
              },
            },
          },
        },
      },
    }),
  },
  '/docs/init.js': {
    get: operation('get', {
      tags: ['docs'],
      summary: 'Start-up script of the reference page (external, so the CSP needs no inline script)',
      access: 'public',
      ok: { '200': { description: 'JavaScript', content: { 'text/javascript': { schema: { type: 'string' } } } } },
    }),
  },
  '/docs/assets/{file}': {
    get: operation('get', {
      tags: ['docs'],
      summary: 'A static asset of the reference page (from the swagger-ui-dist package)',
      access: 'public',
      parameters: [pathParam('file', { enum: [...DOCS_ASSETS] })],
      ok: {
        '200': {
          description: 'The file',
          content: {
            'text/css': { schema: { type: 'string' } },
            'text/javascript': { schema: { type: 'string' } },
            'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
          },
        },
      },
      errors: { 404: ['NOT_FOUND'] },
    }),
  },
};
