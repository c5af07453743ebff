import type { AddressInfo } from 'node:net';
import supertest from 'supertest';
import { buildApp } from '../../src/app';
import type { Container } from '../../src/container';
import { createAppServer } from '../../src/http-server';
import { closeRealtime } from '../../src/realtime/io';
import type { ContainerOverrides } from '../../src/container';
import { createTestContainer, testContainer, type ConfigOverrides } from './container';

/** supertest agent on an app of the shared test container, without a listener (HTTP-only tests). */
export function api(container: Container = testContainer()) {
  return supertest(buildApp(container));
}

export interface TestServer {
  url: string;
  request: ReturnType<typeof supertest>;
  container: Container;
  close(): Promise<void>;
}

/**
 * The real HTTP server with Socket.IO on a random port. Without overrides it uses the shared
 * container; with overrides (settings or parts such as a clock) it builds (and closes) a
 * container of its own.
 */
export async function startTestServer(overrides?: ConfigOverrides, parts?: ContainerOverrides): Promise<TestServer> {
  if (parts) overrides ??= {};
  const container = overrides ? createTestContainer(overrides, parts) : testContainer();
  const { httpServer, io } = createAppServer(container);
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    request: supertest(url),
    container,
    close: async () => {
      httpServer.closeAllConnections();
      await closeRealtime(io);
      container.notifier.unbind();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      if (overrides) await container.close();
    },
  };
}

/**
 * Starts a test server before the file's tests and stops it after them. The returned object's
 * fields are filled in beforeAll.
 */
export function useTestServer(overrides?: ConfigOverrides, parts?: ContainerOverrides): TestServer {
  const handle = {} as TestServer;
  beforeAll(async () => {
    Object.assign(handle, await startTestServer(overrides, parts));
  });
  afterAll(async () => {
    await handle.close?.();
  });
  return handle;
}
