import { Parser } from '@asyncapi/parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildAsyncApiDocument } from '../../src/docs/asyncapi';
import { buildOpenApiDocument } from '../../src/docs/openapi';
import { deriveOperationId } from '../../src/docs/operation-meta';
import { clientToServer, serverToClient } from '../../src/docs/socket.openapi';
import { api } from '../helpers/server';

type Json = Record<string, unknown>;
const openapi = JSON.parse(JSON.stringify(buildOpenApiDocument())) as { info: { description: string; version: string }; paths: Record<string, Record<string, Json>> };
const operations = Object.entries(openapi.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));

describe('OpenAPI operations', () => {
  it('gives every operation a unique camelCase operationId (verb + noun)', () => {
    const ids = operations.map(({ key, op }) => ({ key, id: op.operationId as string | undefined }));
    expect(ids.filter((o) => typeof o.id !== 'string' || !/^[a-z]+[A-Z][A-Za-z0-9]*$/.test(o.id))).toEqual([]);
    const seen = new Map<string, string>();
    const duplicates = ids.filter((o) => seen.has(o.id!) || !seen.set(o.id!, o.key)).map((o) => `${o.id}: ${seen.get(o.id!)} and ${o.key}`);
    expect(duplicates).toEqual([]);
  });

  it('names an operation missing from the table after its method and path', () => {
    expect(deriveOperationId('put', '/events/{slug}/recorder-opt-out')).toBe('setEventsRecorderOptOut');
    expect(deriveOperationId('get', '/admin/reports')).toBe('getAdminReports');
  });

  it('shows a realistic example on every JSON request body, valid against the body schema', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    ajv.addSchema(openapi as unknown as Json, 'openapi.json');
    const problems: string[] = [];
    for (const { key, op } of operations) {
      const json = (op.requestBody as { content?: Record<string, { example?: unknown }> } | undefined)?.content?.['application/json'];
      if (!json) continue;
      if (json.example === undefined) {
        problems.push(`${key}: no example`);
        continue;
      }
      const [method, path] = key.split(' ');
      const pointer = ['paths', path, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema']
        .map((t) => encodeURIComponent(t.replace(/~/g, '~0').replace(/\//g, '~1')))
        .join('/');
      const validate = ajv.compile({ $ref: `openapi.json#/${pointer}` });
      if (!validate(json.example)) problems.push(`${key}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(problems).toEqual([]);
  });
});

describe('the AsyncAPI document', () => {
  const doc = buildAsyncApiDocument(openapi.info.version) as { operations: Record<string, { action: string; messages: { $ref: string }[] }>; components: { messages: Record<string, { name: string }> } };

  it('passes the AsyncAPI parser without an error', async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.parse(JSON.stringify(doc)));
    // severity 0 is an error; warnings and hints are allowed
    expect(diagnostics.filter((d) => d.severity === 0).map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
  });

  it('describes every socket event of the shared declarations, with the direction seen from the service', () => {
    const received = Object.values(doc.operations)
      .filter((o) => o.action === 'receive')
      .map((o) => doc.components.messages[o.messages[0].$ref.split('/').pop()!]?.name ?? o.messages[0].$ref);
    const sent = Object.values(doc.operations)
      .filter((o) => o.action === 'send')
      .map((o) => doc.components.messages[o.messages[0].$ref.split('/').pop()!]?.name ?? o.messages[0].$ref);
    expect(received.sort()).toEqual(Object.keys(clientToServer).sort());
    expect(sent.sort()).toEqual(Object.keys(serverToClient).sort());
  });

  it('is served at GET /api/docs/asyncapi.json and linked from the OpenAPI document shown at /api/docs', async () => {
    const res = await api().get('/api/docs/asyncapi.json').expect(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(openapi.info.description).toContain('(/api/docs/asyncapi.json)');
  });
});
