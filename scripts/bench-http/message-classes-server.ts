/**
 * The server of `npm run bench:http:classes`: bare Express 5 with helmet() answering a small JSON
 * document, its HTTP server making requests and responses one of three ways (argv[2]):
 * `express` (Node's classes; Express changes each object's prototype), `service` (the service's
 * classes, src/lib/app-messages.ts) or `constructors` (the scheme the service used until
 * 2026-12-07: constructors whose `prototype` is the app's, returning `Reflect.construct`).
 * Sends its port to the parent; `GET /reset` and `GET /report` measure its CPU per answer.
 */
import { createServer, IncomingMessage, ServerResponse, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { appMessageClasses } from '../../src/lib/app-messages';

function constructorClasses(app: Express): ServerOptions {
  function AppRequest(...args: unknown[]): IncomingMessage {
    return Reflect.construct(IncomingMessage, args, AppRequest) as IncomingMessage;
  }
  AppRequest.prototype = app.request;
  function AppResponse(...args: unknown[]): ServerResponse {
    return Reflect.construct(ServerResponse, args, AppResponse) as ServerResponse;
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  };
}

const scheme = process.argv[2];
const app = express();
app.disable('x-powered-by');
let answers = 0;
let cpu = process.cpuUsage();
app.get('/reset', (_req, res) => {
  answers = 0;
  cpu = process.cpuUsage();
  res.end();
});
app.get('/report', (_req, res) => {
  const used = process.cpuUsage(cpu);
  res.json({ answers, cpuMicrosPerAnswer: (used.user + used.system) / answers });
});
app.use(helmet());
app.get('/hello', (_req, res) => {
  answers++;
  res.json({ success: true, data: { hello: 'world' } });
});
const options =
  scheme === 'service' ? appMessageClasses(app) : scheme === 'constructors' ? constructorClasses(app) : {};
const server = createServer(options, app);
server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
