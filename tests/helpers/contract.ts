import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/docs/openapi';

/**
 * Contract check of the test suite: every HTTP response received through supertest and every
 * Socket.IO payload received by the test clients is validated against the OpenAPI document
 * (src/docs/openapi.ts). tests/setup/after-env.ts hooks it into supertest; the per-file
 * figures are written to WCS_CONTRACT_DIR and summed up by the global teardown
 * (tests/setup/contract-report.ts).
 */
type Doc = ReturnType<typeof buildOpenApiDocument>;
type Json = Record<string, unknown>;

const doc: Doc = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Doc;
const DOC_ID = 'openapi.json';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema(doc as unknown as Json, DOC_ID);

const compiled = new Map<string, ValidateFunction>();
/** A validator for the schema at a JSON pointer (tokens) inside the document. */
function validatorAt(tokens: string[]): ValidateFunction {
  const pointer = tokens.map((t) => encodeURIComponent(t.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
  let fn = compiled.get(pointer);
  if (!fn) {
    fn = ajv.compile({ $ref: `${DOC_ID}#/${pointer}` });
    compiled.set(pointer, fn);
  }
  return fn;
}

interface Operation {
  key: string;
  method: string;
  template: string;
  regex: RegExp;
  literals: number;
}

const operations: Operation[] = [];
for (const [template, item] of Object.entries(doc.paths)) {
  for (const method of METHODS) {
    if (!(item as Json)[method]) continue;
    const segments = template.split('/').filter(Boolean);
    const regex = new RegExp(
      '^/' +
        segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/') +
        '/?$',
    );
    operations.push({
      key: `${method.toUpperCase()} ${template}`,
      method,
      template,
      regex,
      literals: segments.filter((s) => !s.startsWith('{')).length,
    });
  }
}
// A concrete path wins over a template (OpenAPI rule): most literal segments first.
operations.sort((a, b) => b.literals - a.literals);

/** Every documented operation, as "METHOD /template". */
export const documentedOperations = (): string[] => operations.map((o) => o.key);

export interface ContractStats {
  validated: number;
  outsideDocument: number;
  socketPayloads: number;
  operations: Record<string, number>;
}

export const stats: ContractStats = { validated: 0, outsideDocument: 0, socketPayloads: 0, operations: {} };

function describeErrors(fn: ValidateFunction): string {
  return (fn.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`)
    .join('; ');
}

function preview(body: unknown): string {
  const text = JSON.stringify(body);
  return text && text.length > 600 ? `${text.slice(0, 600)}…` : String(text);
}

export interface ReceivedResponse {
  method: string;
  url: string;
  status: number;
  contentType: string | undefined;
  body: unknown;
}

/** Validates one HTTP response; returns a description of the mismatch, or null. */
export function checkResponse(r: ReceivedResponse): string | null {
  const method = r.method.toLowerCase() === 'head' ? 'get' : r.method.toLowerCase();
  const pathname = new URL(r.url, 'http://localhost').pathname;
  const apiPath = pathname.startsWith('/api/') ? pathname.slice(4) : pathname === '/api' ? '/' : null;
  const op = apiPath === null ? undefined : operations.find((o) => o.method === method && o.regex.test(apiPath));
  const where = `${r.method.toUpperCase()} ${pathname} → ${r.status}`;

  if (!op) {
    // Not an operation of the document: only an error envelope may answer (404 "Not found" for unknown paths).
    stats.validated++;
    stats.outsideDocument++;
    if (r.status < 400) return `${where}: no operation of the OpenAPI document matches this path and method`;
    const fn = validatorAt(['components', 'schemas', 'Error']);
    return fn(r.body) ? null : `${where}: not the error envelope: ${describeErrors(fn)}; body ${preview(r.body)}`;
  }

  stats.validated++;
  stats.operations[op.key] = (stats.operations[op.key] ?? 0) + 1;
  const responses = ((doc.paths as Json)[op.template] as Json)[op.method] as { responses: Record<string, Json> };
  const status = String(r.status);
  const response = responses.responses[status];
  if (!response) return `${where}: status ${status} is not documented for ${op.key}; body ${preview(r.body)}`;
  const content = response.content as Record<string, unknown> | undefined;
  if (!content) return null;
  const mediaType = (r.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (!(mediaType in content)) {
    return `${where}: content type "${mediaType}" is not documented for ${op.key} ${status} (${Object.keys(content).join(', ')})`;
  }
  if (mediaType !== 'application/json') return null;
  const fn = validatorAt(['paths', op.template, op.method, 'responses', status, 'content', mediaType, 'schema']);
  // a test that asked for the raw text (e.g. a CSV download that may answer a JSON error) gets a string body
  const body = typeof r.body === 'string' || Buffer.isBuffer(r.body) ? parseJson(String(r.body)) : r.body;
  return fn(body)
    ? null
    : `${where}: body does not match ${op.key} ${status}: ${describeErrors(fn)}; body ${preview(r.body)}`;
}

const socket = (doc as unknown as { 'x-socket-io': { clientToServer: Json; serverToClient: Json } })['x-socket-io'];

/** Validates a payload received by a test socket; returns a description of the mismatch, or null. */
export function checkSocketEvent(event: string, payload: unknown): string | null {
  stats.socketPayloads++;
  if (!(event in socket.serverToClient))
    return `socket event "${event}" is not documented in x-socket-io.serverToClient`;
  const fn = validatorAt(['x-socket-io', 'serverToClient', event, 'payload']);
  return fn(payload) ? null : `socket event "${event}": ${describeErrors(fn)}; payload ${preview(payload)}`;
}

/** Validates the acknowledgement of a client event; returns a description of the mismatch, or null. */
export function checkSocketAck(event: string, ack: unknown): string | null {
  stats.socketPayloads++;
  if (!(event in socket.clientToServer))
    return `socket event "${event}" is not documented in x-socket-io.clientToServer`;
  const fn = validatorAt(['x-socket-io', 'clientToServer', event, 'ack']);
  return fn(ack) ? null : `ack of "${event}": ${describeErrors(fn)}; ack ${preview(ack)}`;
}

/** Socket mismatches seen outside a promise the test awaits; after-env fails the running test with them. */
export const pendingSocketProblems: string[] = [];

/** Writes this test file's figures for the global teardown. */
export function writeStats(testPath: string): void {
  const dir = process.env.WCS_CONTRACT_DIR;
  if (!dir) {
    // the global setup sets it; under CI a file whose figures are not kept fails (see contract-report.ts)
    if (process.env.CI === 'true')
      throw new Error('WCS_CONTRACT_DIR is not set: run the tests through jest (globalSetup)');
    return;
  }
  mkdirSync(dir, { recursive: true });
  const name = `${path.basename(testPath).replace(/[^A-Za-z0-9_.-]/g, '_')}-${process.pid}-${Date.now()}.json`;
  writeFileSync(path.join(dir, name), JSON.stringify({ file: testPath, ...stats, documented: documentedOperations() }));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
