import { systemActor } from '../../src/lib/actor';
import { prisma } from '../helpers/db';
import { testConfig, withTestContainer } from '../helpers/container';
import { createUser, unique } from '../helpers/factories';
import { api } from '../helpers/server';

const svgOf = (res: { body: unknown; text?: string }) =>
  Buffer.isBuffer(res.body) ? res.body.toString('utf8') : String(res.text);
const getSvg = (seed: string) =>
  api()
    .get(`/api/avatars/${seed}.svg`)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });

describe('avatars served by the service', () => {
  it('answers an SVG without a token, cacheable for a year and never sniffed', async () => {
    const res = await getSvg('alice_1');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(svgOf(res)).toMatch(/^<svg[\s>]/);
  });

  it('renders the same bytes for the same seed and different ones for another seed', async () => {
    const first = svgOf(await getSvg('Dancer_42'));
    const again = svgOf(await getSvg('Dancer_42'));
    const other = svgOf(await getSvg('Dancer_43'));
    expect(again).toBe(first);
    expect(other).not.toBe(first);
  });

  it('renders at most 16 KB of self-contained SVG for every seed tried', async () => {
    for (const seed of ['a', 'Z', 'user_0', 'x'.repeat(64), 'with-hyphen', 'ABC_def-123']) {
      const svg = svgOf(await getSvg(seed));
      expect(Buffer.byteLength(svg)).toBeLessThanOrEqual(16 * 1024);
      expect(svg).not.toMatch(/<script|<foreignObject|@import|\son[a-z]+\s*=|\ssrc\s*=/i);
      for (const [, target] of svg.matchAll(/(?:href\s*=\s*"|url\()([^")]*)/g)) expect(target).toMatch(/^(#|data:)/);
    }
  });

  it('refuses a seed outside 1-64 letters, digits, _ and - with 400 and a detail for seed', async () => {
    for (const seed of ['x'.repeat(65), 'a.b', 'a%20b', '%C3%A9']) {
      const res = await api().get(`/api/avatars/${seed}.svg`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(res.body.details).toEqual([expect.objectContaining({ field: 'seed' })]);
    }
  });

  it('is not counted by the general rate limit', async () => {
    await withTestContainer({ rateLimit: { enabled: true, general: { max: 1, windowMs: 60_000 } } }, async (c) => {
      for (let i = 0; i < 4; i++) expect((await api(c).get(`/api/avatars/seed${i}.svg`)).status).toBe(200);
      expect((await api(c).get('/api/health')).status).toBe(200);
      expect((await api(c).get('/api/health')).status).toBe(429);
    });
  });

  it('gives every new account an avatar under PUBLIC_URL named after its username', async () => {
    const username = unique('av_');
    await withTestContainer({ publicUrl: 'https://wcs.example.org' }, async (c) => {
      const res = await api(c)
        .post('/api/auth/register')
        .send({ username, email: `${username}@example.test`, password: 'secret123' });
      expect(res.status).toBe(201);
      expect(res.body.data.user.avatar).toBe(`https://wcs.example.org/api/avatars/${username}.svg`);
    });
  });

  it('points stored generator URLs and URLs under an old PUBLIC_URL at this service, keeping their seed', async () => {
    const legacy = await createUser();
    const moved = await createUser();
    await prisma.user.update({
      where: { id: legacy.user.id },
      data: { avatar: `https://api.dicebear.com/9.x/avataaars/svg?seed=${legacy.user.username}` },
    });
    await prisma.user.update({
      where: { id: moved.user.id },
      data: { avatar: `https://old.example/api/avatars/${moved.user.username}.svg` },
    });

    const changed = await withTestContainer({}, (c) => c.avatars.repointStoredUrls(systemActor('test')));
    expect(changed).toBeGreaterThanOrEqual(2);
    const base = `${testConfig().publicUrl}/api/avatars`;
    expect((await prisma.user.findUniqueOrThrow({ where: { id: legacy.user.id } })).avatar).toBe(
      `${base}/${legacy.user.username}.svg`,
    );
    expect((await prisma.user.findUniqueOrThrow({ where: { id: moved.user.id } })).avatar).toBe(
      `${base}/${moved.user.username}.svg`,
    );
    // a second run finds nothing to change
    expect(await withTestContainer({}, (c) => c.avatars.repointStoredUrls(systemActor('test')))).toBe(0);
  });

  it('answers every avatar of a profile with the service route, never a third-party host', async () => {
    const viewer = await createUser();
    const subject = await createUser();
    const res = await api().get(`/api/users/${subject.user.username}`).set('Authorization', viewer.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.avatar).toBe(`${testConfig().publicUrl}/api/avatars/${subject.user.username}.svg`);
    expect(JSON.stringify(res.body)).not.toContain('dicebear.com');
  });
});
