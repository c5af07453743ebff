import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';
import type { Container } from '../../src/container';
import { createTestContainer } from '../helpers/container';
import { useHttpStub } from '../helpers/http-stub';
import { api } from '../helpers/server';

/**
 * The outbound registry lookup against a hostile registry (a fake one on 127.0.0.1): redirects
 * are refused, the decompressed body is capped while it streams, and one deadline covers the
 * headers and the whole body.
 */
const seen: string[] = [];
/** responses of the endless paths, to check that the service hung up */
const open = new Set<ServerResponse>();
let closedByClient = 0;

const DANCER = JSON.stringify({ dancer_first: 'Red', dancer_last: 'Irect', dancer_wsdcid: 1 });

/** Calls `write` until the client goes away, waiting for `stream` to drain when it asks to. */
function endless(res: ServerResponse, write: () => boolean, intervalMs = 0, stream: NodeJS.WritableStream = res) {
  open.add(res);
  res.on('close', () => {
    open.delete(res);
    closedByClient++;
  });
  const step = () => {
    if (res.destroyed || res.writableEnded) return;
    const more = write();
    if (intervalMs > 0) setTimeout(step, intervalMs).unref();
    else if (more) setImmediate(step);
    else stream.once('drain', step);
  };
  step();
}

function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    req.resume();
    req.on('end', resolve);
  });
}

const registry = useHttpStub(async (req, res) => {
  await drain(req);
  seen.push(req.url ?? '');
  switch (req.url) {
    case '/ok':
      res.writeHead(200, { 'content-type': 'application/json' }).end(DANCER);
      return;
    case '/redirect':
      // a redirect to an internal address: following it would replay the POST there
      res.writeHead(307, { location: `${registry.baseUrl}/ok` }).end();
      return;
    case '/moved':
      res.writeHead(301, { location: `${registry.baseUrl}/ok` }).end();
      return;
    case '/gzip-bomb': {
      // zeros, gzip-compressed about 1000:1, for as long as the client reads
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      const gzip = createGzip();
      gzip.pipe(res);
      const zeros = Buffer.alloc(64 * 1024, 0x20);
      endless(res, () => gzip.write(zeros), 0, gzip);
      return;
    }
    case '/large':
      res.writeHead(200, { 'content-type': 'application/json' });
      endless(res, () => res.write(' '.repeat(64 * 1024)));
      return;
    case '/drip':
      // headers at once, then one byte every 50 ms, never finished
      res.writeHead(200, { 'content-type': 'application/json' });
      endless(res, () => res.write(' '), 50);
      return;
    default:
      res.writeHead(400).end();
  }
});

let containers: Container[] = [];
/** The API of a container whose registry is the fake one at `path`. */
function registryApi(path: string, timeoutMs: number) {
  const c = createTestContainer({ registry: { lookupUrl: `${registry.baseUrl}${path}`, timeoutMs } });
  containers.push(c);
  return api(c);
}
beforeEach(() => {
  seen.length = 0;
  closedByClient = 0;
});
afterEach(async () => {
  await Promise.all(containers.map((c) => c.close()));
  containers = [];
});

const unavailable = {
  success: false,
  error: 'Registry is unavailable, please try again later',
  code: 'REGISTRY_UNAVAILABLE',
};
const timedOut = {
  success: false,
  error: 'Registry did not answer in time, please try again later',
  code: 'REGISTRY_TIMEOUT',
};

describe('registry lookup against a hostile registry', () => {
  it.each(['/redirect', '/moved'])(
    'refuses the redirect of %s with 502 and never requests its target',
    async (path) => {
      const res = await registryApi(path, 2000).get('/api/registry/lookup').query({ id: '1' });
      expect(res.status).toBe(502);
      expect(res.body).toEqual(unavailable);
      expect(seen).toEqual([path]);
    },
  );

  it('stops reading a gzip bomb past 2 MB decompressed: 502 long before the deadline, connection closed', async () => {
    const res = await registryApi('/gzip-bomb', 20_000).get('/api/registry/lookup').query({ id: '2' }).timeout(15_000);
    expect(res.status).toBe(502);
    expect(res.body).toEqual(unavailable);
    await waitFor(() => closedByClient === 1);
  });

  it('ends four gzip bombs at once, each with 502 before the deadline', async () => {
    const app = registryApi('/gzip-bomb', 20_000);
    const answers = await Promise.all(
      ['21', '22', '23', '24'].map((id) => app.get('/api/registry/lookup').query({ id }).timeout(15_000)),
    );
    expect(answers.map((r) => r.status)).toEqual([502, 502, 502, 502]);
    await waitFor(() => closedByClient === 4);
  });

  it('stops reading an endless plain body past 2 MB with 502', async () => {
    const res = await registryApi('/large', 20_000).get('/api/registry/lookup').query({ id: '3' }).timeout(15_000);
    expect(res.status).toBe(502);
    expect(res.body).toEqual(unavailable);
    await waitFor(() => closedByClient === 1);
  });

  it('ends a body that drips slower than the deadline with 504 and hangs up', async () => {
    const res = await registryApi('/drip', 400).get('/api/registry/lookup').query({ id: '4' }).timeout(10_000);
    expect(res.status).toBe(504);
    expect(res.body).toEqual(timedOut);
    await waitFor(() => closedByClient === 1);
  });

  it('ends four dripping lookups at once, each with 504 (none waits for another)', async () => {
    const app = registryApi('/drip', 400);
    const answers = await Promise.all(
      ['11', '12', '13', '14'].map((id) => app.get('/api/registry/lookup').query({ id }).timeout(10_000)),
    );
    expect(answers.map((r) => r.status)).toEqual([504, 504, 504, 504]);
    expect(seen.filter((p) => p === '/drip')).toHaveLength(4);
    await waitFor(() => closedByClient === 4);
  });
});

/** Polls `condition` (the fake registry notices a closed connection a moment after the answer). */
async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms (closed by client: ${closedByClient})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
