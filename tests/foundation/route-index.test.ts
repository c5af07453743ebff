import express, { Router } from 'express';
import { pathEnds, routeIndex } from '../../src/lib/route-index';
import { useServedApps } from '../helpers/http-stub';

// Apps of their own, called with fetch (supertest answers are checked against the OpenAPI
// document by tests/setup/after-env.ts). The whole API goes through the index in every other test.

/** A router answering `name` on each of `paths` (GET). */
function answering(name: string, ...paths: string[]): Router {
  const router = Router();
  for (const path of paths) router.get(path, (_req, res) => void res.json({ by: name, path }));
  return router;
}

const serve = useServedApps();

function appOf(...routers: Router[]) {
  const app = express();
  app.use('/v', routeIndex(routers));
  app.use((_req, res) => void res.status(404).json({ by: 'not found' }));
  return serve(app);
}

describe('route index', () => {
  it('answers from the first router that has the route, as routers mounted in order do', async () => {
    const request = await appOf(
      answering('first', '/events', '/users/me'),
      answering('second', '/events', '/dashboard'),
    );
    expect((await request.get('/v/events')).body).toEqual({ by: 'first', path: '/events' });
    expect((await request.get('/v/dashboard')).body).toEqual({ by: 'second', path: '/dashboard' });
  });

  it('passes a path whose first segment no router has on to what follows', async () => {
    const request = await appOf(answering('first', '/events'));
    expect((await request.get('/v/nothing/here')).body).toEqual({ by: 'not found' });
    expect((await request.get('/v')).body).toEqual({ by: 'not found' });
  });

  it('enters a router whose route starts with a parameter for every first segment', async () => {
    const request = await appOf(answering('literal', '/events'), answering('param', '/:anything/details'));
    expect((await request.get('/v/events/details')).body).toEqual({ by: 'param', path: '/:anything/details' });
    expect((await request.get('/v/other/details')).body).toEqual({ by: 'param', path: '/:anything/details' });
  });

  it('matches in any letter case, with a trailing slash and a query string, as Express does', async () => {
    const request = await appOf(answering('first', '/events/:slug'));
    for (const url of ['/v/EVENTS/a', '/v/Events/a/', '/v/events/a?x=1'])
      expect((await request.get(url)).body).toEqual({ by: 'first', path: '/events/:slug' });
  });

  it('enters only the routers with a route for the last segment, a parameter matching any', async () => {
    const request = await appOf(
      answering('a', '/events/:slug/a'),
      answering('b', '/events/:slug/b'),
      answering('any', '/events/:slug/:part'),
    );
    expect((await request.get('/v/events/x/b')).body).toEqual({ by: 'b', path: '/events/:slug/b' });
    expect((await request.get('/v/events/x/A/')).body).toEqual({ by: 'a', path: '/events/:slug/a' });
    expect((await request.get('/v/events/x/c')).body).toEqual({ by: 'any', path: '/events/:slug/:part' });
  });

  it('enters a router whose route has a wildcard or an optional group for every path', async () => {
    const request = await appOf(answering('literal', '/files/x'), answering('wild', '/files/*rest', '/maybe{/:x}'));
    expect((await request.get('/v/files/a/b')).body).toEqual({ by: 'wild', path: '/files/*rest' });
    expect((await request.get('/v/maybe')).body).toEqual({ by: 'wild', path: '/maybe{/:x}' });
    expect((await request.get('/v/maybe/1')).body).toEqual({ by: 'wild', path: '/maybe{/:x}' });
  });

  it('takes the first and last segments of a URL', () => {
    expect(pathEnds('/Events/abc/Details?x=1')).toEqual({ first: 'events', last: 'details' });
    expect(pathEnds('/dashboard?x=/y')).toEqual({ first: 'dashboard', last: 'dashboard' });
    expect(pathEnds('/events/abc/')).toEqual({ first: 'events', last: 'abc' });
    expect(pathEnds('/')).toEqual({ first: '', last: '' });
    expect(pathEnds('/?x')).toEqual({ first: '', last: '' });
  });
});
