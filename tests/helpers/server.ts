import type { AddressInfo } from 'node:net';
import supertest from 'supertest';
import { buildApp } from '../../src/app';
import { createAppServer } from '../../src/http-server';
import { closeRealtime } from '../../src/realtime/io';

/** supertest agent on an app without a listener (HTTP-only tests). */
export function api() {
  return supertest(buildApp());
}

export interface TestServer {
  url: string;
  request: ReturnType<typeof supertest>;
  close(): Promise<void>;
}

/** The real HTTP server with Socket.IO on a random port (socket tests). */
export async function startTestServer(): Promise<TestServer> {
  const { httpServer } = createAppServer();
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    request: supertest(url),
    close: async () => {
      httpServer.closeAllConnections();
      await closeRealtime();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
