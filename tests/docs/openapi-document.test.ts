import { validate } from '@readme/openapi-parser';
import { buildOpenApiDocument } from '../../src/docs/openapi';
import { checkResponse, checkSocketEvent, documentedOperations, stats } from '../helpers/contract';
import { api } from '../helpers/server';

type Json = Record<string, unknown>;

/** Every schema object of the document (walks properties, items, compositions and components). */
function objectSchemas(node: unknown, at: string, out: { at: string; schema: Json }[] = []) {
  if (Array.isArray(node)) {
    node.forEach((n, i) => objectSchemas(n, `${at}/${i}`, out));
    return out;
  }
  if (!node || typeof node !== 'object') return out;
  const schema = node as Json;
  const type = schema.type;
  if (type === 'object' || (Array.isArray(type) && type.includes('object'))) out.push({ at, schema });
  for (const [key, value] of Object.entries(schema)) objectSchemas(value, `${at}/${key}`, out);
  return out;
}

describe('the OpenAPI document', () => {
  const doc = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Json;

  it('passes @readme/openapi-parser in its strictest mode (every rule an error)', async () => {
    const result = await validate(JSON.parse(JSON.stringify(doc)) as never);
    expect(result).toMatchObject({ valid: true, warnings: [] });
  });

  it('closes every object schema (additionalProperties is stated; false wherever properties are listed)', () => {
    const open = objectSchemas(doc, '#')
      .filter(({ schema }) => !('additionalProperties' in schema) || (schema.properties !== undefined && schema.additionalProperties !== false))
      .map(({ at }) => at);
    expect(open).toEqual([]);
  });

  it('documents 401 on every operation with a token, 403 CSRF on every state change and 413 on every body', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const o = op as { security: unknown[]; responses: Json; requestBody?: unknown };
        const needs = (status: string) => !(status in o.responses) && missing.push(`${method.toUpperCase()} ${path} ${status}`);
        if (o.security.length > 0) needs('401');
        if (method !== 'get') needs('403');
        if (o.requestBody) needs('413');
        // GET /metrics is mounted before the API rate limit and answers only 200, 401 and 404.
        if (path !== '/metrics') for (const status of ['429', '500', '503']) needs(status);
      }
    }
    expect(missing).toEqual([]);
  });

  it('is served at GET /api/docs/openapi.json', async () => {
    const res = await api().get('/api/docs/openapi.json').expect(200);
    expect(res.body).toEqual(doc);
  });
});

describe('the contract check itself', () => {
  // These checks feed made-up responses: keep them out of the suite's figures.
  let saved: string;
  beforeAll(() => {
    saved = JSON.stringify(stats);
  });
  afterAll(() => {
    Object.assign(stats, JSON.parse(saved));
  });

  it('refuses a response body with a field the schema does not list (an e-mail in a public profile)', () => {
    const profile = {
      id: 1, username: 'alice', avatar: 'https://a.test/x.svg', firstName: null, lastName: null, city: null, country: null,
      registryId: null, createdAt: new Date().toISOString(), instagramUrl: null, facebookUrl: null, youtubeUrl: null, tiktokUrl: null,
      stats: { matches: { total: 0, accepted: 0, completed: 0 }, ratings: { received: 0, given: 0, average: null }, recordings: { done: 0, received: 0 } },
    };
    const response = (data: unknown) => ({ method: 'GET', url: 'http://x/api/users/alice', status: 200, contentType: 'application/json', body: { success: true, data } });
    expect(checkResponse(response(profile))).toBeNull();
    expect(checkResponse(response({ ...profile, email: 'alice@example.test' }))).toMatch(/additional/);
  });

  it('refuses an undocumented status, an unknown error code and a success on an unknown path', () => {
    expect(checkResponse({ method: 'GET', url: '/api/divisions', status: 418, contentType: 'application/json', body: {} })).toMatch(/not documented/);
    expect(
      checkResponse({ method: 'GET', url: '/api/events/x', status: 404, contentType: 'application/json', body: { success: false, error: 'Gone', code: 'MATCH_NOT_FOUND' } }),
    ).toMatch(/code/);
    expect(checkResponse({ method: 'GET', url: '/api/nowhere', status: 200, contentType: 'application/json', body: {} })).toMatch(/no operation/);
  });

  it('refuses a socket payload that does not match its event schema', () => {
    expect(checkSocketEvent('error_message', { error: 'x' })).toBeNull();
    expect(checkSocketEvent('error_message', { error: 'x', stack: 'at …' })).toMatch(/additional/);
    expect(checkSocketEvent('no_such_event', {})).toMatch(/not documented/);
  });

  it('lists every operation of the document', () => {
    expect(documentedOperations()).toContain('GET /admin/events/{slug}/matching-runs/{runId}/suggestions');
  });
});
