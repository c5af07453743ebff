import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import express from 'express';
import { createAppServer } from '../../src/http-server';
import { appMessageClasses } from '../../src/lib/app-messages';
import { closeRealtime } from '../../src/realtime/io';
import { testContainer } from '../helpers/container';
import { runTs } from '../helpers/process';

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

  it('makes every request, and every response, with one hidden class, as Node makes its own', async () => {
    // a fresh V8 of its own, with natives syntax (tests/fixtures/message-maps.ts)
    const { code, stdout, stderr } = await runTs('tests/fixtures/message-maps.ts', [], { PATH: process.env.PATH });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({ requests: true, responses: true, prototypes: true });
  }, 60_000);

  it("gives the app's server and its start-up warm-up the same classes, and the app keeps its prototypes", () => {
    const app = express();
    const first = appMessageClasses(app);
    const { request, response } = app;
    expect(appMessageClasses(app)).toBe(first);
    expect(app.request).toBe(request);
    expect(app.response).toBe(response);
    expect(Object.getPrototypeOf(new first.IncomingMessage(new Socket()))).toBe(request);
  });
});
