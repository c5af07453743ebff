import { prisma } from '../helpers/db';
import type { TransferPayload } from '../../src/realtime/types';
import { createTestContainer } from '../helpers/container';
import { createTrio, insertMatch } from '../helpers/matches';
import { hmacSha1, toBase64, utf8 } from '../helpers/hmac-sha1';
import { api, startTestServer, type TestServer } from '../helpers/server';
import { nextEvent, useSocketClients } from '../helpers/socket';

const SHA = 'ab'.repeat(32);
const offer = { fileName: 'heat-3-finals.mp4', size: 314_572_800, sha256: SHA };

describe('video transfer records over HTTP', () => {
  let server: TestServer;
  const connect = useSocketClients(() => server.url);

  async function pair(status: 'accepted' | 'completed' | 'pending' = 'accepted') {
    const trio = await createTrio();
    const match = await insertMatch(trio.event, trio.alice.user, trio.bob.user, status);
    return { ...trio, match, base: `/api/matches/${match.slug}/transfers` };
  }

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('POST /matches/:slug/transfers answers 201 offered, stores the record and notifies both members', async () => {
    const { alice, bob, match, base } = await pair();
    const [a, b] = await Promise.all([connect(alice.token), connect(bob.token)]);
    const aliceGets = nextEvent<TransferPayload>(a, 'transfer_updated');
    const bobGets = nextEvent<TransferPayload>(b, 'transfer_updated');
    const res = await server.request
      .post(base)
      .set('Authorization', alice.auth)
      .send({ ...offer, sha256: SHA.toUpperCase() });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      matchSlug: match.slug,
      sender: { id: alice.user.id, username: alice.user.username },
      receiver: { id: bob.user.id, username: bob.user.username },
      ...offer,
      status: 'offered',
      finishedAt: null,
    });
    const row = await prisma.videoTransfer.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect(row).toMatchObject({
      matchId: match.id,
      senderId: alice.user.id,
      receiverId: bob.user.id,
      size: BigInt(offer.size),
      sha256: SHA,
      status: 'offered',
    });
    expect(await aliceGets).toMatchObject({ id: row.id, status: 'offered' });
    expect(await bobGets).toMatchObject({ id: row.id, status: 'offered' });
  });

  it('PATCH by the receiver completes an offered transfer, notifies both, and counts as a video received', async () => {
    const { alice, bob, event, match, base } = await pair();
    const created = await server.request.post(base).set('Authorization', alice.auth).send(offer).expect(201);
    const a = await connect(alice.token);
    const aliceGets = nextEvent<TransferPayload>(a, 'transfer_updated');
    const res = await server.request
      .patch(`${base}/${created.body.data.id}`)
      .set('Authorization', bob.auth)
      .send({ status: 'completed' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: created.body.data.id, status: 'completed' });
    expect(res.body.data.finishedAt).not.toBeNull();
    expect(await aliceGets).toMatchObject({ id: created.body.data.id, status: 'completed' });
    expect(await prisma.videoTransfer.findUniqueOrThrow({ where: { id: created.body.data.id } })).toMatchObject({
      status: 'completed',
    });

    const bobView = await server.request.get(`/api/matches/${match.slug}`).set('Authorization', bob.auth).expect(200);
    const aliceView = await server.request
      .get(`/api/matches/${match.slug}`)
      .set('Authorization', alice.auth)
      .expect(200);
    expect([bobView.body.data.videosReceived, aliceView.body.data.videosReceived]).toEqual([1, 0]);
    const bobList = await server.request.get('/api/matches').set('Authorization', bob.auth).expect(200);
    expect(bobList.body.data.find((m: { slug: string }) => m.slug === match.slug).videosReceived).toBe(1);
    const dashboard = await server.request.get('/api/dashboard').set('Authorization', bob.auth).expect(200);
    expect(dashboard.body.data.events.find((e: { id: number }) => e.id === event.id).videosReceived).toBe(1);
  });

  it('PATCH completed by the sender answers 403', async () => {
    const { alice, base } = await pair();
    const created = await server.request.post(base).set('Authorization', alice.auth).send(offer).expect(201);
    const res = await server.request
      .patch(`${base}/${created.body.data.id}`)
      .set('Authorization', alice.auth)
      .send({ status: 'completed' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      error: 'Only the receiver can complete a transfer',
      code: 'NOT_TRANSFER_RECEIVER',
    });
  });

  it('PATCH of a transfer that is no longer offered answers 400, and either member may cancel or fail an offered one', async () => {
    const { alice, bob, base } = await pair();
    const first = await server.request.post(base).set('Authorization', alice.auth).send(offer).expect(201);
    await server.request
      .patch(`${base}/${first.body.data.id}`)
      .set('Authorization', alice.auth)
      .send({ status: 'cancelled' })
      .expect(200);
    const again = await server.request
      .patch(`${base}/${first.body.data.id}`)
      .set('Authorization', bob.auth)
      .send({ status: 'completed' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: 'Transfer is not offered', code: 'TRANSFER_NOT_OFFERED' });
    const second = await server.request.post(base).set('Authorization', alice.auth).send(offer).expect(201);
    const failed = await server.request
      .patch(`${base}/${second.body.data.id}`)
      .set('Authorization', bob.auth)
      .send({ status: 'failed' });
    expect(failed.body.data.status).toBe('failed');
  });

  it('PATCH of a transfer of another match answers 404 "Transfer not found"', async () => {
    const one = await pair();
    const other = await pair();
    const created = await server.request
      .post(other.base)
      .set('Authorization', other.alice.auth)
      .send(offer)
      .expect(201);
    const res = await server.request
      .patch(`${one.base}/${created.body.data.id}`)
      .set('Authorization', one.bob.auth)
      .send({ status: 'completed' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'Transfer not found', code: 'TRANSFER_NOT_FOUND' });
  });

  it('GET /matches/:slug/transfers lists newest first', async () => {
    const { alice, bob, base } = await pair();
    const first = await server.request.post(base).set('Authorization', alice.auth).send(offer).expect(201);
    const second = await server.request
      .post(base)
      .set('Authorization', bob.auth)
      .send({ ...offer, fileName: 'heat-4.mp4' })
      .expect(201);
    const res = await server.request.get(base).set('Authorization', alice.auth).expect(200);
    expect(res.body.count).toBe(2);
    expect(res.body.data.map((t: TransferPayload) => t.id)).toEqual([second.body.data.id, first.body.data.id]);
    expect(res.body.data[0].receiver.id).toBe(alice.user.id);
  });

  it('answers 404 "Match not found" to a user outside the match on every transfer route', async () => {
    const { alice, carol, base } = await pair();
    const created = await server.request.post(base).set('Authorization', alice.auth).send(offer).expect(201);
    for (const res of [
      await server.request.post(base).set('Authorization', carol.auth).send(offer),
      await server.request.get(base).set('Authorization', carol.auth),
      await server.request
        .patch(`${base}/${created.body.data.id}`)
        .set('Authorization', carol.auth)
        .send({ status: 'cancelled' }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'Match not found', code: 'MATCH_NOT_FOUND' });
    }
  });

  it('POST in a match that is not accepted answers 400', async () => {
    const { alice, base } = await pair('pending');
    const res = await server.request.post(base).set('Authorization', alice.auth).send(offer);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Match is not accepted', code: 'MATCH_NOT_ACCEPTED' });
  });

  it.each([
    ['fileName', { ...offer, fileName: '' }],
    ['fileName', { ...offer, fileName: 'x'.repeat(256) }],
    ['size', { ...offer, size: 0 }],
    ['size', { ...offer, size: '12' }],
    ['size', { ...offer, size: 1.5 }],
    ['sha256', { ...offer, sha256: 'abc' }],
    ['sha256', { fileName: 'a.mp4', size: 1 }],
  ])('POST answers 400 Validation failed for an invalid %s (case %#)', async (field, body) => {
    const { alice, base } = await pair();
    const res = await server.request.post(base).set('Authorization', alice.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Validation failed', code: 'VALIDATION_ERROR' });
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('PATCH answers 400 Validation failed for an unknown status or a non-integer id', async () => {
    const { bob, base } = await pair();
    expect(
      (await server.request.patch(`${base}/1`).set('Authorization', bob.auth).send({ status: 'offered' })).status,
    ).toBe(400);
    expect(
      (await server.request.patch(`${base}/abc`).set('Authorization', bob.auth).send({ status: 'failed' })).status,
    ).toBe(400);
  });
});

describe('GET /webrtc/ice-servers', () => {
  it('answers 401 without a token', async () => {
    const server = await startTestServer();
    try {
      const res = await server.request.get('/api/webrtc/ice-servers');
      expect(res.status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('answers an empty list with the default ttl when neither STUN nor TURN is configured, never cached', async () => {
    const { alice } = await createTrio();
    const server = await startTestServer();
    try {
      const res = await server.request.get('/api/webrtc/ice-servers').set('Authorization', alice.auth).expect(200);
      expect(res.body).toEqual({ success: true, data: { iceServers: [], ttlSeconds: 3600 } });
      expect(res.headers['cache-control']).toBe('no-store');
    } finally {
      await server.close();
    }
  });

  it('answers STUN and TURN with credentials that verify against HMAC-SHA1 of the shared secret', async () => {
    const { alice, bob, event } = await createTrio();
    await insertMatch(event, alice.user, bob.user, 'accepted'); // TURN only for hand-off partners
    const now = new Date('2026-11-24T10:00:00Z');
    const webrtc = {
      stunUrls: ['stun:turn.example.test:3478'],
      turnUrls: ['turn:turn.example.test:3478'],
      turnSecret: 'shared-secret',
      turnTtlSeconds: 600,
    };
    const c = createTestContainer({ webrtc }, { clock: { now: () => now } });
    const res = await api(c).get('/api/webrtc/ice-servers').set('Authorization', alice.auth);
    await c.close();
    expect(res.status).toBe(200);
    const username = `${now.getTime() / 1000 + 600}:${alice.user.id}`;
    expect(res.body.data).toEqual({
      iceServers: [
        { urls: ['stun:turn.example.test:3478'] },
        {
          urls: ['turn:turn.example.test:3478'],
          username,
          credential: toBase64(hmacSha1(utf8('shared-secret'), utf8(username))),
        },
      ],
      ttlSeconds: 600,
    });
  });
});

describe('API reference', () => {
  it('documents the ICE servers, the transfer routes and videosReceived', async () => {
    const doc = (await api().get('/api/docs/openapi.json').expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/webrtc/ice-servers', '/matches/{slug}/transfers', '/matches/{slug}/transfers/{id}']),
    );
    expect(JSON.stringify(doc.paths['/matches/{slug}'])).toContain('#/components/schemas/MatchWithRated');
    expect(doc.components.schemas.MatchWithRated.properties.videosReceived).toBeDefined();
    expect(JSON.stringify(doc.paths['/dashboard'])).toContain('videosReceived');
    expect(doc.paths['/webrtc/ice-servers'].get.description).toContain('webrtc_signal');
  });
});
