import { Router, type RequestHandler } from 'express';

/**
 * The feature routers behind one lookup on the first and last segments of the path (issue 29,
 * item 4).
 *
 * Mounted one after the other, every request walked the routes of every router before its own
 * (~80 path matches for `GET /api/dashboard`, and Express defers a walk of more than 100 layers
 * to the next turn of the loop): a tenth of the CPU of a cached hot read. Here a request enters
 * only the routers that have a route which can match its first and last segments
 * (`/events/:slug/match-suggestions`: `events` … `match-suggestions`), in their order. A
 * segment of a route that is not a literal (a parameter, a wildcard, an optional group) matches
 * any, and a layer that is not a route matches everything, so the routes that answer a request,
 * and their order, are those of the routers mounted one after the other. Literals compare
 * case-insensitively and a trailing slash is ignored, as Express's routes do by default.
 */
export function routeIndex(routers: readonly Router[]): RequestHandler {
  const members = routers.map((router) => ({ router, routes: routeEnds(router) }));
  const chain = (first: string | undefined, last: string | undefined): RequestHandler | undefined => {
    const entered = members.filter(({ routes }) => routes.some((route) => route.matches(first, last)));
    if (entered.length === 0) return undefined;
    const router = Router();
    for (const { router: member } of entered) router.use(member);
    return router;
  };
  // per first segment a route names, and for any other (undefined): per last segment a route
  // names, and for any other
  const firsts = new Set(members.flatMap(({ routes }) => routes.map((r) => r.first)));
  firsts.add(undefined);
  const byFirst = new Map(
    [...firsts].map((first) => {
      const lasts = members.flatMap(({ routes }) =>
        routes.filter((r) => r.first === undefined || r.first === first).map((r) => r.last),
      );
      const byLast = new Map([...new Set(lasts)].filter(isDefined).map((last) => [last, chain(first, last)]));
      return [first, { byLast, other: chain(first, undefined) }];
    }),
  );
  return (req, res, next) => {
    const { first, last } = pathEnds(req.url);
    const forFirst = byFirst.get(first) ?? byFirst.get(undefined)!;
    const handler = forFirst.byLast.has(last) ? forFirst.byLast.get(last) : forFirst.other;
    if (!handler) return next();
    return handler(req, res, next);
  };
}

/** The first and last segments of a URL's path, lower case, a trailing slash ignored. */
export function pathEnds(url: string): { first: string; last: string } {
  const query = url.indexOf('?');
  let path = query === -1 ? url : url.slice(0, query);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const firstEnd = path.indexOf('/', 1);
  return {
    first: (firstEnd === -1 ? path.slice(1) : path.slice(1, firstEnd)).toLowerCase(),
    last: path.slice(path.lastIndexOf('/') + 1).toLowerCase(),
  };
}

interface RouteEnds {
  /** the literal first and last segments; undefined where any segment may match */
  first: string | undefined;
  last: string | undefined;
  matches(first: string | undefined, last: string | undefined): boolean;
}

const isDefined = <T>(value: T | undefined): value is T => value !== undefined;
/** a segment with any of these is not a literal (path-to-regexp's parameters, wildcards, groups) */
const NOT_LITERAL = /[:*{}()[\]?+!\\]/;

function routeEnds(router: Router): RouteEnds[] {
  const ends: RouteEnds[] = [];
  for (const layer of router.stack as { route?: { path: unknown } }[]) {
    const paths = layer.route ? [layer.route.path].flat() : [undefined];
    for (const path of paths) {
      const literalPath = typeof path === 'string' && path.startsWith('/') && !/[{}*]/.test(path);
      const segments = literalPath ? pathEnds(path) : undefined;
      const literal = (segment: string | undefined) =>
        segment !== undefined && !NOT_LITERAL.test(segment) ? segment : undefined;
      const first = literal(segments?.first);
      const last = literal(segments?.last);
      ends.push({
        first,
        last,
        // a request segment no route names (undefined) is matched only by a non-literal
        matches: (f, l) => (first === undefined || first === f) && (last === undefined || last === l),
      });
    }
  }
  return ends;
}
