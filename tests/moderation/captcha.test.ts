import type { IncomingMessage } from 'node:http';
import { loadConfig } from '../../src/config/index';
import { ConfigError } from '../../src/config/config-error';
import { withTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { unique } from '../helpers/factories';
import { useHttpStub } from '../helpers/http-stub';
import { api } from '../helpers/server';
import supertest from 'supertest';
import { buildApp } from '../../src/app';

/** A fake siteverify endpoint: each path answers one way; every request is recorded. */
const received: { path: string; body: string; contentType?: string }[] = [];

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(body));
  });
}

const verifier = useHttpStub(async (req, res) => {
  const body = await readBody(req);
  received.push({ path: req.url ?? '', body, contentType: req.headers['content-type'] });
  const token = new URLSearchParams(body).get('response');
  switch (req.url) {
    case '/siteverify':
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: token === 'good-token', 'error-codes': [] }));
      return;
    case '/down':
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"success":true}');
      return;
    case '/html':
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      return;
    case '/slow':
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}'), 1500);
      return;
    default:
      res.writeHead(404).end();
  }
});

const account = () => {
  const username = unique('cap_');
  return { username, email: `${username.toLowerCase()}@example.test`, password: 'secret123' };
};

/** The service with the CAPTCHA on, asking the fake verifier at `path`. */
const withCaptcha = <T>(path: string, fn: (request: ReturnType<typeof supertest>) => Promise<T>) =>
  withTestContainer(
    { captcha: { secret: 'captcha-test-secret', verifyUrl: `${verifier.baseUrl}${path}`, timeoutMs: 400 } },
    (c) => fn(supertest(buildApp(c))),
  );

const storedUsers = (email: string) => prisma.user.count({ where: { email } });

describe('CAPTCHA on registration', () => {
  beforeEach(() => {
    received.length = 0;
  });

  it('is off by default: registration works without a token and a given token is ignored', async () => {
    const res = await api()
      .post('/api/auth/register')
      .send({ ...account(), captchaToken: 'whatever' });
    expect(res.status).toBe(201);
    expect(received).toHaveLength(0);
  });

  it('passes with a token the verifier accepts, sending secret, response and remoteip form-encoded', async () => {
    const body = account();
    const res = await withCaptcha('/siteverify', (r) =>
      r.post('/api/auth/register').send({ ...body, captchaToken: 'good-token' }),
    );
    expect(res.status).toBe(201);
    expect(received).toHaveLength(1);
    expect(received[0].contentType).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(received[0].body);
    expect(form.get('secret')).toBe('captcha-test-secret');
    expect(form.get('response')).toBe('good-token');
    expect(form.get('remoteip')).toMatch(/127\.0\.0\.1/);
    expect(await storedUsers(body.email)).toBe(1);
  });

  it('refuses a missing or empty token with 400 CAPTCHA_FAILED without asking the verifier, storing nothing', async () => {
    for (const captchaToken of [undefined, '']) {
      const body = account();
      const res = await withCaptcha('/siteverify', (r) => r.post('/api/auth/register').send({ ...body, captchaToken }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: 'CAPTCHA verification failed', code: 'CAPTCHA_FAILED' });
      expect(await storedUsers(body.email)).toBe(0);
    }
    expect(received).toHaveLength(0);
  });

  it('refuses a token the verifier rejects with 400 CAPTCHA_FAILED, storing nothing (so no mail is queued)', async () => {
    const body = account();
    const res = await withCaptcha('/siteverify', (r) =>
      r.post('/api/auth/register').send({ ...body, captchaToken: 'bad-token' }),
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('CAPTCHA_FAILED');
    expect(await storedUsers(body.email)).toBe(0);
    expect(await prisma.activityLog.count({ where: { action: 'register', username: body.username } })).toBe(0);
  });

  it('answers 503 CAPTCHA_UNAVAILABLE when the verifier answers non-2xx, not JSON, too slowly, or cannot be reached', async () => {
    for (const path of ['/down', '/html', '/slow']) {
      const body = account();
      const res = await withCaptcha(path, (r) =>
        r.post('/api/auth/register').send({ ...body, captchaToken: 'good-token' }),
      );
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        success: false,
        error: 'CAPTCHA verification is unavailable, please try again later',
        code: 'CAPTCHA_UNAVAILABLE',
      });
      expect(await storedUsers(body.email)).toBe(0);
    }
    const body = account();
    const unreachable = await withTestContainer(
      { captcha: { secret: 's', verifyUrl: 'http://127.0.0.1:9/siteverify', timeoutMs: 400 } },
      (c) =>
        supertest(buildApp(c))
          .post('/api/auth/register')
          .send({ ...body, captchaToken: 'good-token' }),
    );
    expect(unreachable.status).toBe(503);
    expect(unreachable.body.code).toBe('CAPTCHA_UNAVAILABLE');
  });

  it('validates the body first: an invalid body is a 400 VALIDATION_ERROR and the verifier is not asked', async () => {
    const res = await withCaptcha('/siteverify', (r) =>
      r.post('/api/auth/register').send({ ...account(), email: 'not-an-address', captchaToken: 'good-token' }),
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(received).toHaveLength(0);
  });

  it('runs before the duplicate checks: a taken e-mail with a refused token is a 400, with a good token a 409', async () => {
    const body = account();
    await api().post('/api/auth/register').send(body).expect(201);
    const refused = await withCaptcha('/siteverify', (r) =>
      r.post('/api/auth/register').send({ ...body, captchaToken: 'bad-token' }),
    );
    expect(refused.body.code).toBe('CAPTCHA_FAILED');
    const taken = await withCaptcha('/siteverify', (r) =>
      r.post('/api/auth/register').send({ ...body, captchaToken: 'good-token' }),
    );
    expect(taken.status).toBe(409);
  });

  it('leaves login unchanged', async () => {
    const body = account();
    await api().post('/api/auth/register').send(body).expect(201);
    const res = await withCaptcha('/siteverify', (r) =>
      r.post('/api/auth/login').send({ email: body.email, password: body.password }),
    );
    expect(res.status).toBe(200);
    expect(received).toHaveLength(0);
  });

  it('refuses to start with a CAPTCHA_VERIFY_URL that is not a URL', () => {
    expect(() => loadConfig({ ...process.env, CAPTCHA_VERIFY_URL: 'not a url' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...process.env, CAPTCHA_VERIFY_URL: 'not a url' })).toThrow(/CAPTCHA_VERIFY_URL/);
    expect(loadConfig({ ...process.env, CAPTCHA_SECRET: undefined }).captcha).toEqual({
      secret: undefined,
      verifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
      timeoutMs: 5000,
    });
  });
});
