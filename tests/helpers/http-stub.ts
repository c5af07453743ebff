import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP server in the test process standing in for an outside service (e.g. the registry). */
export interface HttpStub {
  /** `http://127.0.0.1:<port>`, set before the tests run */
  baseUrl: string;
}

/** For a test file: starts `handler` on a free loopback port before the tests and closes it (and its open connections) after them. */
export function useHttpStub(handler: RequestListener): HttpStub {
  const stub: HttpStub = { baseUrl: '' };
  const server = createServer(handler);
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stub.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return stub;
}

/**
 * For a test file: `serve(app)` listens on a free loopback port (closed after each test) and
 * answers a client whose GET gives the status, headers and JSON body. For apps built in a test
 * (supertest answers are checked against the OpenAPI document by tests/setup/after-env.ts).
 */
export function useServedApps(): (app: RequestListener) => Promise<{
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: unknown }>;
}> {
  const servers: ReturnType<typeof createServer>[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });
  return async (app) => {
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    return {
      get: async (path, headers = {}) => {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
        return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
      },
    };
  };
}
