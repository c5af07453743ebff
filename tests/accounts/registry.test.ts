import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Container } from '../../src/container';
import { createTestContainer } from '../helpers/container';
import { parseRegistryResponse } from '../../src/modules/registry/registry.service';
import { useHttpStub } from '../helpers/http-stub';
import { api } from '../helpers/server';

/**
 * A fake registry in the test process; each test builds containers whose REGISTRY_LOOKUP_URL
 * points at one of its paths (registryApi).
 */
const FIXTURE = readFileSync(path.join(__dirname, '..', 'fixtures', 'registry-lookup-29012.json'), 'utf8');

const requests: { path: string; body: string; contentType?: string }[] = [];

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(body));
  });
}

const registry = useHttpStub(async (req, res) => {
  const body = await readBody(req);
  requests.push({ path: req.url ?? '', body, contentType: req.headers['content-type'] });
  const num = new URLSearchParams(body).get('num');
  switch (req.url) {
    case '/ok':
      if (num === '29012') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(FIXTURE);
      } else if (num === '777') {
        // All-Stars spelled ALS, leader placements as an object
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            leader: {
              dancer: { first_name: 'Al', last_name: 'Star', wscid: 777 },
              placements: { 'West Coast Swing': { ALS: { division: { abbreviation: 'ALS' }, total_points: '12' } } },
            },
            follower: { dancer: { first_name: 'Al', last_name: 'Star', wscid: 777 }, placements: [] },
            dancer_first: 'Al',
            dancer_last: 'Star',
            dancer_wsdcid: 777,
            short_dominate_role: 'Leader',
          }),
        );
      } else if (num === '404') {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
      } else {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ leader: { type: 'none' }, follower: [] }));
      }
      return;
    case '/slow':
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(FIXTURE), 1500).unref();
      return;
    case '/broken':
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops, a PHP warning</html>');
      return;
    case '/error':
      res.writeHead(500).end('Internal Server Error');
      return;
    default:
      res.writeHead(400).end();
  }
});

/** Each test's containers, by upstream path: a fresh cache per test, closed after it. */
let containers = new Map<string, Container>();
/** The API of a container whose registry is the fake one at `path` (default /ok). */
function registryApi(path = '/ok') {
  const url = path.startsWith('http') ? path : `${registry.baseUrl}${path}`;
  let c = containers.get(url);
  if (!c) {
    c = createTestContainer({ registry: { lookupUrl: url, timeoutMs: 500 } });
    containers.set(url, c);
  }
  return api(c);
}
beforeEach(() => {
  requests.length = 0;
});
afterEach(async () => {
  await Promise.all([...containers.values()].map((c) => c.close()));
  containers = new Map();
});

describe('GET /registry/lookup', () => {
  it('POSTs form-encoded num=<id> upstream and maps the real response shape', async () => {
    const res = await registryApi().get('/api/registry/lookup').query({ id: '29012' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        registryId: '29012',
        firstName: 'Toni',
        lastName: 'Watt',
        primaryRole: 'Follower',
        divisions: [{ abbreviation: 'NOV', points: 1, role: 'Follower' }],
      },
    });
    expect(requests).toEqual([{ path: '/ok', body: 'num=29012', contentType: 'application/x-www-form-urlencoded' }]);
  });

  it('maps ALS to ALL and reads placements given as an object on the leader side', async () => {
    const res = await registryApi().get('/api/registry/lookup').query({ id: '777' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      registryId: '777',
      firstName: 'Al',
      lastName: 'Star',
      primaryRole: 'Leader',
      divisions: [{ abbreviation: 'ALL', points: 12, role: 'Leader' }],
    });
  });

  it('caches results: a second lookup does not reach the registry', async () => {
    expect((await registryApi().get('/api/registry/lookup').query({ id: '29012' })).status).toBe(200);
    expect((await registryApi().get('/api/registry/lookup').query({ id: '29012' })).status).toBe(200);
    expect(requests).toHaveLength(1);
  });

  it('answers 404 "Dancer not found in registry" for an upstream 404 page and for JSON without a dancer', async () => {
    for (const id of ['404', '123']) {
      const res = await registryApi().get('/api/registry/lookup').query({ id });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        success: false,
        error: 'Dancer not found in registry',
        code: 'REGISTRY_DANCER_NOT_FOUND',
      });
    }
  });

  it.each([['abc'], ['12345678901'], ['-1'], ['']])('refuses the id %j with 400', async (id) => {
    const res = await registryApi().get('/api/registry/lookup').query({ id });
    expect(res.status).toBe(400);
    expect(requests).toHaveLength(0);
  });

  it('refuses a missing id with 400', async () => {
    expect((await registryApi().get('/api/registry/lookup')).status).toBe(400);
  });

  it('answers 504 when the registry is slower than the timeout', async () => {
    const res = await registryApi('/slow').get('/api/registry/lookup').query({ id: '29012' });
    expect(res.status).toBe(504);
    expect(res.body.success).toBe(false);
  });

  it('answers 502 for a broken answer, an upstream error and an unreachable registry (not cached)', async () => {
    for (const url of [`${registry.baseUrl}/broken`, `${registry.baseUrl}/error`, 'http://127.0.0.1:1/find']) {
      const res = await registryApi(url).get('/api/registry/lookup').query({ id: '29012' });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ success: false, code: 'REGISTRY_UNAVAILABLE' });
    }
    expect((await registryApi().get('/api/registry/lookup').query({ id: '29012' })).status).toBe(200);
  });
});

describe('parseRegistryResponse', () => {
  it('returns null for shapes without a dancer', () => {
    expect(parseRegistryResponse(null, '1')).toBeNull();
    expect(parseRegistryResponse([], '1')).toBeNull();
    expect(parseRegistryResponse({ leader: [], follower: [] }, '1')).toBeNull();
  });
});

describe('GET /registry/lookup with a repeated id', () => {
  it('answers 400', async () => {
    const res = await api().get('/api/registry/lookup?id=1&id=2');
    expect(res.status).toBe(400);
  });
});
