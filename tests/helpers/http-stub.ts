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
