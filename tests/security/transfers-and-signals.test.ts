import { MAX_OPEN_TRANSFERS } from '../../src/modules/webrtc/transfers.service';
import { SIGNAL_BYTES_PER_MATCH, WebrtcService } from '../../src/modules/webrtc/webrtc.service';
import { MatchAccess } from '../../src/modules/matches/match-access';
import { prisma } from '../helpers/db';
import { createTrio, insertMatch } from '../helpers/matches';
import { startTestServer, type TestServer } from '../helpers/server';
import { emitAck, nextEvent, receivesWithin, useSocketClients } from '../helpers/socket';
import { actorFor } from '../helpers/actor';

/**
 * Transfers and signal data (docs/security-hardening.md): open offers capped per match, control
 * and bidirectional characters refused in file names, signal bytes limited per match, and hangup
 * data relayed only in a known shape.
 */
const SHA = 'cd'.repeat(32);
const offer = (fileName = 'heat-7.mp4') => ({ fileName, size: 1024, sha256: SHA });

let server: TestServer;
const connect = useSocketClients(() => server.url);
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

async function pair() {
  const trio = await createTrio();
  const match = await insertMatch(trio.event, trio.alice.user, trio.bob.user, 'accepted');
  return { ...trio, match, base: `/api/matches/${match.slug}/transfers` };
}

describe('open transfer offers per match', () => {
  it(`refuses the offer past ${MAX_OPEN_TRANSFERS} open ones (both directions) with 429 TOO_MANY_OPEN_TRANSFERS and Retry-After: 60; a cancel frees a place`, async () => {
    const { alice, bob, match, base } = await pair();
    for (let i = 0; i < MAX_OPEN_TRANSFERS; i++) {
      const sender = i % 2 === 0 ? alice : bob;
      expect(
        (
          await server.request
            .post(base)
            .set('Authorization', sender.auth)
            .send(offer(`clip-${i}.mp4`))
        ).status,
      ).toBe(201);
    }
    const refused = await server.request.post(base).set('Authorization', alice.auth).send(offer('one-more.mp4'));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      code: 'TOO_MANY_OPEN_TRANSFERS',
      error: 'Too many open transfer offers for this match',
    });
    expect(refused.headers['retry-after']).toBe('60');
    expect(await prisma.videoTransfer.count({ where: { matchId: match.id } })).toBe(MAX_OPEN_TRANSFERS);

    const first = await prisma.videoTransfer.findFirstOrThrow({
      where: { matchId: match.id, senderId: alice.user.id },
    });
    expect(
      (await server.request.patch(`${base}/${first.id}`).set('Authorization', alice.auth).send({ status: 'cancelled' }))
        .status,
    ).toBe(200);
    expect(
      (await server.request.post(base).set('Authorization', bob.auth).send(offer('after-cancel.mp4'))).status,
    ).toBe(201);
  });

  it(`creates exactly ${MAX_OPEN_TRANSFERS} of ${MAX_OPEN_TRANSFERS + 6} parallel offers`, async () => {
    const { alice, match, base } = await pair();
    const answers = await Promise.all(
      Array.from({ length: MAX_OPEN_TRANSFERS + 6 }, (_, i) =>
        server.request
          .post(base)
          .set('Authorization', alice.auth)
          .send(offer(`p-${i}.mp4`)),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(MAX_OPEN_TRANSFERS);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(6);
    expect(await prisma.videoTransfer.count({ where: { matchId: match.id, status: 'offered' } })).toBe(
      MAX_OPEN_TRANSFERS,
    );
  });
});

describe('file names', () => {
  it.each([
    ['a right-to-left override', 'holiday\u202Egpj.exe'],
    ['a left-to-right isolate', 'clip\u2066.mp4'],
    ['an Arabic letter mark', 'clip\u061C.mp4'],
    ['a right-to-left mark', 'clip\u200F.mp4'],
    ['a line feed', 'clip\n.mp4'],
    ['an escape', 'clip\u001b[31m.mp4'],
    ['a C1 control', 'clip\u0085.mp4'],
  ])('refuses a fileName with %s (400 naming fileName) and stores nothing', async (_what, fileName) => {
    const { alice, match, base } = await pair();
    const res = await server.request.post(base).set('Authorization', alice.auth).send(offer(fileName));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details).toEqual([
      { field: 'fileName', message: 'fileName must not contain control or bidirectional formatting characters' },
    ]);
    expect(await prisma.videoTransfer.count({ where: { matchId: match.id } })).toBe(0);
  });

  it('keeps non-Latin names and spaces', async () => {
    const { alice, base } = await pair();
    const res = await server.request
      .post(base)
      .set('Authorization', alice.auth)
      .send(offer('  Finał – Łódź 2026.mp4 '));
    expect(res.status).toBe(201);
    expect(res.body.data.fileName).toBe('Finał – Łódź 2026.mp4');
  });
});

/** `{ a: { a: … { reason } } }`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { reason: 'done' };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe('hangup data', () => {
  it('relays data nested 8 levels (its JSON copy)', async () => {
    const { alice, bob, match } = await pair();
    const [a, b] = await Promise.all([connect(alice.token), connect(bob.token)]);
    const bobGets = nextEvent<{ kind: string; data: unknown }>(b, 'webrtc_signal');
    expect(await emitAck(a, 'webrtc_signal', { matchSlug: match.slug, kind: 'hangup', data: nested(8) })).toEqual({
      success: true,
    });
    expect((await bobGets).data).toEqual(nested(8));
  });

  it.each([9, 1000])('refuses data nested %i levels with INVALID_SIGNAL and relays nothing', async (levels) => {
    const { alice, bob, match } = await pair();
    const [a, b] = await Promise.all([connect(alice.token), connect(bob.token)]);
    const relayed = receivesWithin(b, 'webrtc_signal', 500);
    const ack = await emitAck(a, 'webrtc_signal', { matchSlug: match.slug, kind: 'hangup', data: nested(levels) });
    expect(ack).toMatchObject({ success: false, code: 'INVALID_SIGNAL' });
    expect(await relayed).toBe(false);
  });

  it('refuses arrays nested too deep as well', async () => {
    const { alice, bob, match } = await pair();
    const [a] = await Promise.all([connect(alice.token), connect(bob.token)]);
    let deep: unknown = [];
    for (let i = 0; i < 20; i++) deep = [deep];
    const ack = await emitAck(a, 'webrtc_signal', { matchSlug: match.slug, kind: 'hangup', data: { list: deep } });
    expect(ack).toMatchObject({ success: false, code: 'INVALID_SIGNAL' });
  });
});

describe('signal bytes per match (frozen clock)', () => {
  it("refuses signals past the match's byte budget for both members, refills with time, and leaves other matches alone", async () => {
    const { alice, bob, carol, event, match } = await pair();
    const other = await insertMatch(event, carol.user, bob.user, 'accepted');
    let now = new Date('2026-11-26T10:00:00Z');
    const relayed: unknown[] = [];
    const service = new WebrtcService({
      matches: new MatchAccess(prisma),
      config: { stunUrls: [], turnUrls: [], turnTtlSeconds: 3600 },
      clock: { now: () => now },
      notifier: { toUser: (_userId, _event, ...payload) => void relayed.push(...payload) },
      signalLimit: { perSecond: 1000, burst: 1000 }, // the per-user count out of the way
    });
    const sdp = 'v=0\r\n' + 'a'.repeat(16 * 1024 - 10);
    const send = (from: Parameters<typeof actorFor>[0], slug = match.slug) =>
      service.relaySignal(actorFor(from), { matchSlug: slug, kind: 'offer', data: { type: 'offer', sdp } });
    const bytesPerOffer = Buffer.byteLength(JSON.stringify({ type: 'offer', sdp }), 'utf8');
    const fits = Math.floor(SIGNAL_BYTES_PER_MATCH.burst / bytesPerOffer);
    for (let i = 0; i < fits; i++) await send(i % 2 === 0 ? alice.user : bob.user);
    await expect(send(alice.user)).rejects.toMatchObject({
      code: 'SIGNAL_RATE_LIMITED',
      status: 429,
      message: 'Too much signal data for this match, slow down',
    });
    await expect(send(bob.user)).rejects.toMatchObject({ code: 'SIGNAL_RATE_LIMITED' });
    await expect(send(carol.user, other.slug)).resolves.toBeUndefined();
    now = new Date(now.getTime() + 1000);
    const refilled = Math.floor(SIGNAL_BYTES_PER_MATCH.perSecond / bytesPerOffer);
    for (let i = 0; i < refilled; i++) await send(alice.user);
    expect(relayed).toHaveLength(fits + 1 + refilled);
  });
});
