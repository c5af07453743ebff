import type { AddressInfo } from 'node:net';
import type { Container } from '../../src/container.js';
import { createAppServer } from '../../src/http-server.js';
import { closeRealtime } from '../../src/realtime/io.js';

export interface BenchServer {
  url: string;
  /** closes the connections, Socket.IO and the listener (not the container) */
  close(): Promise<void>;
}

/** The service of `container` (app and Socket.IO) in this process, listening on a free loopback port. */
export async function listenOnLoopback(container: Container): Promise<BenchServer> {
  const { httpServer, io } = createAppServer(container);
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`,
    close: async () => {
      httpServer.closeAllConnections();
      await closeRealtime(io);
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
