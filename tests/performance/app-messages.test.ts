import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAppServer } from '../../src/http-server';
import { closeRealtime } from '../../src/realtime/io';
import { testContainer } from '../helpers/container';

/**
 * The service's HTTP server makes requests and responses that already have the app's
 * prototypes (src/lib/app-messages.ts), so Express's `Object.setPrototypeOf` of every request
 * changes nothing (on Node 20 the change made each request's allocations outlive young-generation
 * collections).
 */
describe('HTTP server messages', () => {
  it("hands the app requests and responses born with the app's prototypes, and the app answers as before", async () => {
    const { app, httpServer, io } = createAppServer(testContainer());
    const born: { request: boolean; response: boolean }[] = [];
    // runs before Express, on the objects as the server made them
    httpServer.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      born.push({
        request: Object.getPrototypeOf(req) === app.request,
        response: Object.getPrototypeOf(res) === app.response,
      });
    });
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = httpServer.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/api/health/live`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ success: true, data: { status: 'ok' } });
      const missing = await fetch(`http://127.0.0.1:${port}/api/nowhere`);
      expect(missing.status).toBe(404);
      expect(born).toEqual([
        { request: true, response: true },
        { request: true, response: true },
      ]);
    } finally {
      httpServer.closeAllConnections();
      await closeRealtime(io);
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    }
  });
});
