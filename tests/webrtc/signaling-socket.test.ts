import { prisma } from '../helpers/db';
import { MAX_CANDIDATE_BYTES, MAX_SDP_BYTES } from '../../src/modules/webrtc/webrtc.schemas';
import { SIGNAL_LIMIT, WebrtcService } from '../../src/modules/webrtc/webrtc.service';
import { MatchAccess } from '../../src/modules/matches/match-access';
import type { WebrtcSignalRelay } from '../../src/realtime/types';
import { createTrio, insertMatch } from '../helpers/matches';
import { startTestServer, type TestServer } from '../helpers/server';
import { emitAck, nextEvent, useSocketClients } from '../helpers/socket';
import { collectSignals, SAMPLE_CANDIDATE, SAMPLE_SDP } from '../helpers/webrtc';
import { actorFor } from '../helpers/actor';

describe('webrtc_signal relay over Socket.IO', () => {
  let server: TestServer;
  const connect = useSocketClients(() => server.url);

  /** alice and bob in an accepted match, carol at the same event; all three connected. */
  async function acceptedPair(status: 'accepted' | 'completed' | 'pending' = 'accepted') {
    const trio = await createTrio({ alice: { firstName: 'Alice' } });
    const match = await insertMatch(trio.event, trio.alice.user, trio.bob.user, status);
    const [a, b, c] = await Promise.all([
      connect(trio.alice.token),
      connect(trio.bob.token),
      connect(trio.carol.token),
    ]);
    return { ...trio, match, a, b, c };
  }

  const marker = (n: string) => ({ ...SAMPLE_CANDIDATE, candidate: `candidate:${n} 1 udp 1 127.0.0.1 9 typ host` });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('relays an offer to the other member with from, and acknowledges the sender', async () => {
    const { alice, match, a, b } = await acceptedPair();
    const bobGets = nextEvent<WebrtcSignalRelay>(b, 'webrtc_signal');
    const ack = await emitAck(a, 'webrtc_signal', {
      matchSlug: match.slug,
      kind: 'offer',
      data: { type: 'offer', sdp: SAMPLE_SDP },
    });
    expect(ack).toEqual({ success: true });
    expect(await bobGets).toEqual({
      matchSlug: match.slug,
      kind: 'offer',
      data: { type: 'offer', sdp: SAMPLE_SDP },
      from: {
        id: alice.user.id,
        username: alice.user.username,
        avatar: alice.user.avatar,
        firstName: 'Alice',
        lastName: null,
      },
    });
  });

  it('relays answer, ice-candidate and hangup in order, in a completed match too', async () => {
    const { bob, match, a, b } = await acceptedPair('completed');
    const aliceSignals = collectSignals(a);
    expect(
      await emitAck(b, 'webrtc_signal', {
        matchSlug: match.slug,
        kind: 'answer',
        data: { type: 'answer', sdp: SAMPLE_SDP },
      }),
    ).toEqual({ success: true });
    expect(
      await emitAck(b, 'webrtc_signal', { matchSlug: match.slug, kind: 'ice-candidate', data: SAMPLE_CANDIDATE }),
    ).toEqual({ success: true });
    expect(await emitAck(b, 'webrtc_signal', { matchSlug: match.slug, kind: 'hangup' })).toEqual({ success: true });
    expect(
      await emitAck(b, 'webrtc_signal', { matchSlug: match.slug, kind: 'ice-candidate', data: marker('end') }),
    ).toEqual({ success: true });
    const received = await aliceSignals.until(marker('end').candidate);
    expect(received.map((r) => [r.kind, r.from.id])).toEqual([
      ['answer', bob.user.id],
      ['ice-candidate', bob.user.id],
      ['hangup', bob.user.id],
      ['ice-candidate', bob.user.id],
    ]);
    expect(received[1].data).toEqual(SAMPLE_CANDIDATE);
    expect(received[2].data).toBeNull();
  });

  it("refuses a third user's signal with 'Match not found' and relays nothing", async () => {
    const { match, a, b, c } = await acceptedPair();
    const bobSignals = collectSignals(b);
    const aliceSignals = collectSignals(a);
    const ack = await emitAck(c, 'webrtc_signal', {
      matchSlug: match.slug,
      kind: 'offer',
      data: { type: 'offer', sdp: SAMPLE_SDP },
    });
    expect(ack).toEqual({ success: false, error: 'Match not found', code: 'MATCH_NOT_FOUND' });
    await emitAck(a, 'webrtc_signal', { matchSlug: match.slug, kind: 'ice-candidate', data: marker('m1') });
    await emitAck(b, 'webrtc_signal', { matchSlug: match.slug, kind: 'ice-candidate', data: marker('m2') });
    expect((await bobSignals.until(marker('m1').candidate)).map((r) => r.kind)).toEqual(['ice-candidate']);
    expect((await aliceSignals.until(marker('m2').candidate)).map((r) => r.kind)).toEqual(['ice-candidate']);
  });

  it("refuses an unknown match slug with 'Match not found'", async () => {
    const { a } = await acceptedPair();
    expect(await emitAck(a, 'webrtc_signal', { matchSlug: 'no-such-match', kind: 'hangup' })).toEqual({
      success: false,
      error: 'Match not found',
      code: 'MATCH_NOT_FOUND',
    });
  });

  it('refuses a signal in a match that is not accepted', async () => {
    const { match, a } = await acceptedPair('pending');
    expect(
      await emitAck(a, 'webrtc_signal', {
        matchSlug: match.slug,
        kind: 'offer',
        data: { type: 'offer', sdp: SAMPLE_SDP },
      }),
    ).toEqual({
      success: false,
      error: 'Match is not accepted',
      code: 'MATCH_NOT_ACCEPTED',
    });
  });

  it('refuses an unknown kind', async () => {
    const { match, a } = await acceptedPair();
    expect(await emitAck(a, 'webrtc_signal', { matchSlug: match.slug, kind: 'renegotiate', data: {} })).toEqual({
      success: false,
      error: 'kind must be one of offer, answer, ice-candidate, hangup',
      code: 'UNKNOWN_SIGNAL_KIND',
    });
  });

  it('refuses an SDP over 16 KB and accepts one of exactly 16 KB', async () => {
    const { match, a } = await acceptedPair();
    const sdpOf = (bytes: number) => SAMPLE_SDP + 'a'.repeat(bytes - SAMPLE_SDP.length);
    expect(
      await emitAck(a, 'webrtc_signal', {
        matchSlug: match.slug,
        kind: 'offer',
        data: { type: 'offer', sdp: sdpOf(MAX_SDP_BYTES + 1) },
      }),
    ).toEqual({
      success: false,
      error: 'SDP larger than 16 KB',
      code: 'SIGNAL_TOO_LARGE',
    });
    expect(
      await emitAck(a, 'webrtc_signal', {
        matchSlug: match.slug,
        kind: 'offer',
        data: { type: 'offer', sdp: sdpOf(MAX_SDP_BYTES) },
      }),
    ).toEqual({
      success: true,
    });
  });

  it('refuses an ICE candidate over 2 KB', async () => {
    const { match, a } = await acceptedPair();
    const data = { ...SAMPLE_CANDIDATE, candidate: 'candidate:' + 'x'.repeat(MAX_CANDIDATE_BYTES) };
    expect(await emitAck(a, 'webrtc_signal', { matchSlug: match.slug, kind: 'ice-candidate', data })).toEqual({
      success: false,
      error: 'ICE candidate larger than 2 KB',
      code: 'SIGNAL_TOO_LARGE',
    });
  });

  it('refuses malformed payloads with INVALID_SIGNAL', async () => {
    const { match, a } = await acceptedPair();
    for (const payload of [
      null,
      'offer',
      { kind: 'offer' },
      { matchSlug: match.slug, kind: 'offer', data: { type: 'answer', sdp: 'x' } },
      { matchSlug: match.slug, kind: 'ice-candidate', data: { candidate: 1 } },
    ]) {
      expect(await emitAck(a, 'webrtc_signal', payload)).toMatchObject({ success: false, code: 'INVALID_SIGNAL' });
    }
  });

  it('refuses signals beyond the per-user flood limit, and relays exactly the accepted ones', async () => {
    const { match, a, b } = await acceptedPair();
    const bobSignals = collectSignals(b);
    const total = SIGNAL_LIMIT.burst * 3;
    const acks = await Promise.all(
      Array.from({ length: total }, (_, i) =>
        emitAck(a, 'webrtc_signal', { matchSlug: match.slug, kind: 'ice-candidate', data: marker(`flood${i}`) }),
      ),
    );
    const refused = acks.filter((ack) => !ack.success);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toEqual({ success: false, error: 'Too many signals, slow down', code: 'SIGNAL_RATE_LIMITED' });
    const accepted = acks.flatMap((ack, i) => (ack.success ? [marker(`flood${i}`).candidate] : []));
    const relayed = await bobSignals.untilCount(accepted.length);
    expect(relayed.map((r) => (r.data as { candidate: string }).candidate).sort()).toEqual(accepted.sort());
    // a marker sent after the flood (one second's refill later) arrives next: nothing else was relayed
    await new Promise((resolve) => setTimeout(resolve, 1000 / SIGNAL_LIMIT.perSecond + 1));
    // (refill, not a timed assertion: waiting only lets one token come back)
    expect(
      await emitAck(a, 'webrtc_signal', { matchSlug: match.slug, kind: 'ice-candidate', data: marker('after') }),
    ).toEqual({ success: true });
    expect(await bobSignals.until(marker('after').candidate)).toHaveLength(accepted.length + 1);
  });
});

describe('WebrtcService flood limit (frozen clock)', () => {
  it('accepts a burst of 100 signals, refuses the 101st, and accepts 50 more one second later', async () => {
    const { event, alice, bob } = await createTrio();
    const match = await insertMatch(event, alice.user, bob.user, 'accepted');
    let now = new Date('2026-11-24T10:00:00Z');
    const relayed: unknown[] = [];
    const service = new WebrtcService({
      matches: new MatchAccess(prisma),
      config: { stunUrls: [], turnUrls: [], turnTtlSeconds: 3600 },
      clock: { now: () => now },
      notifier: { toUser: (_userId, _event, ...payload) => void relayed.push(...payload) },
    });
    const send = () => service.relaySignal(actorFor(alice.user), { matchSlug: match.slug, kind: 'hangup', data: null });
    for (let i = 0; i < SIGNAL_LIMIT.burst; i++) await send();
    await expect(send()).rejects.toMatchObject({ code: 'SIGNAL_RATE_LIMITED', status: 429 });
    now = new Date(now.getTime() + 1000);
    for (let i = 0; i < SIGNAL_LIMIT.perSecond; i++) await send();
    await expect(send()).rejects.toMatchObject({ code: 'SIGNAL_RATE_LIMITED' });
    expect(relayed).toHaveLength(SIGNAL_LIMIT.burst + SIGNAL_LIMIT.perSecond);
    // bob's own bucket is untouched
    await expect(
      service.relaySignal(actorFor(bob.user), { matchSlug: match.slug, kind: 'hangup', data: null }),
    ).resolves.toBeUndefined();
  });
});
