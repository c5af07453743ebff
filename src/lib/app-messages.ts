import { IncomingMessage, ServerResponse, type ServerOptions } from 'node:http';
import type { Express } from 'express';

/**
 * The request and response classes of an HTTP server for `app`: their instances are born with
 * the app's prototypes (`app.request`, `app.response`). Express gives every request and
 * response those prototypes (`Object.setPrototypeOf` in `app.handle`); V8 does nothing when the
 * prototype asked for is already the object's. Changing it instead cost every request on Node 20:
 * ~15-30 KB of what each request allocates then outlived young-generation collections, which
 * paused 7-20 ms every second at 600 requests a second (a bare Express app reproduces it; plain
 * `http` does not): docs/event-day.md, "2026-11-27 19:55-21:40 UTC".
 */
export function appMessageClasses(app: Express): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  // Reflect.construct runs Node's constructor with `new.target` ours, so the new object's
  // prototype is ours, whether Node's constructor is a function or a class
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
