import { IncomingMessage, ServerResponse, type ServerOptions } from 'node:http';
import type { Express } from 'express';

type MessageClasses = Required<Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'>>;

/** One pair per app: its HTTP server and the start-up's warm-up listener share them. */
const classesOf = new WeakMap<Express, MessageClasses>();

/**
 * The request and response classes of an HTTP server for `app`: their instances are born with
 * the app's prototypes (`app.request`, `app.response`). Express gives every request and
 * response those prototypes (`Object.setPrototypeOf` in `app.handle`); V8 does nothing when the
 * prototype asked for is already the object's. Changing it instead cost every request on Node 20:
 * ~15-30 KB of what each request allocates then outlived young-generation collections, which
 * paused 7-20 ms every second at 600 requests a second (a bare Express app reproduces it; plain
 * `http` does not): docs/event-day.md, "2026-11-27 19:55-21:40 UTC".
 *
 * The classes extend Node's, and the app's prototypes become theirs: each class's prototype takes
 * the own properties of `app.request` / `app.response` (`app`) and inherits Express's methods as
 * they did, and `app.request` / `app.response` are set to it. Constructors whose `prototype` was
 * `app.request`, returning `Reflect.construct(IncomingMessage, args, constructor)`, cost 18 µs a
 * request and 29 µs a response on Node 20 (V8 11.3 makes such objects the slow way; a subclass
 * is as fast as Node's own classes, 0.15 µs for both): docs/benchmarks.md, "2026-12-07".
 */
export function appMessageClasses(app: Express): MessageClasses {
  const known = classesOf.get(app);
  if (known) return known;
  const AppRequest = class AppRequest extends IncomingMessage {};
  adopt(AppRequest.prototype, app.request);
  app.request = AppRequest.prototype as Express['request'];
  const AppResponse = class AppResponse extends ServerResponse {};
  adopt(AppResponse.prototype, app.response);
  app.response = AppResponse.prototype as Express['response'];
  const classes = { IncomingMessage: AppRequest, ServerResponse: AppResponse } as MessageClasses;
  classesOf.set(app, classes);
  return classes;
}

/** Makes `target` stand for `prototype`: its own properties, and what it inherits. */
function adopt(target: object, prototype: object): void {
  Object.setPrototypeOf(target, Object.getPrototypeOf(prototype) as object);
  for (const key of Reflect.ownKeys(prototype))
    Object.defineProperty(target, key, Object.getOwnPropertyDescriptor(prototype, key)!);
}
