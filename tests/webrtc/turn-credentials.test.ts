import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/config/config-error';
import fc from 'fast-check';
import { iceServersFor, turnCredentials } from '../../src/modules/webrtc/ice-servers';
import { hmacSha1, toBase64, toHex, utf8 } from '../helpers/hmac-sha1';

describe('TURN REST credentials (coturn use-auth-secret)', () => {
  it('the independent HMAC-SHA1 matches the RFC 2202 test vectors', () => {
    expect(toHex(hmacSha1(new Uint8Array(20).fill(0x0b), utf8('Hi There')))).toBe(
      'b617318655057264e28bc0b6fb378c8ef146be00',
    );
    expect(toHex(hmacSha1(utf8('Jefe'), utf8('what do ya want for nothing?')))).toBe(
      'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79',
    );
    expect(
      toHex(hmacSha1(new Uint8Array(80).fill(0xaa), utf8('Test Using Larger Than Block-Size Key - Hash Key First'))),
    ).toBe('aa4ae5e15272d00e95705637ce8a3b55ed402112');
  });

  it('username is "<unix expiry>:<userId>" with expiry = now + ttl, credential base64(HMAC-SHA1(secret, username))', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 100 }),
        fc.integer({ min: 1, max: 2_147_483_647 }),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.integer({ min: 60, max: 604_800 }),
        (secret, userId, nowMs, ttl) => {
          const { username, credential, expiresAt } = turnCredentials(secret, userId, new Date(nowMs), ttl);
          const expiry = Math.floor(nowMs / 1000) + ttl;
          expect(username).toBe(`${expiry}:${userId}`);
          expect(expiresAt.getTime()).toBe(expiry * 1000);
          expect(credential).toBe(toBase64(hmacSha1(utf8(secret), utf8(username))));
        },
      ),
    );
  });

  it('answers an empty list without STUN or TURN (LAN-only deployment)', () => {
    expect(iceServersFor({ stunUrls: [], turnUrls: [], turnTtlSeconds: 3600 }, 7, new Date())).toEqual({
      iceServers: [],
      ttlSeconds: 3600,
    });
  });

  it('answers STUN only when TURN has no URLs', () => {
    const view = iceServersFor(
      { stunUrls: ['stun:stun.example.test:3478'], turnUrls: [], turnSecret: 's', turnTtlSeconds: 600 },
      7,
      new Date(),
    );
    expect(view).toEqual({ iceServers: [{ urls: ['stun:stun.example.test:3478'] }], ttlSeconds: 600 });
  });

  it('answers STUN then TURN with credentials when both are configured', () => {
    const now = new Date('2026-11-24T10:00:00Z');
    const config = {
      stunUrls: ['stun:turn.example.test:3478'],
      turnUrls: ['turn:turn.example.test:3478?transport=udp', 'turns:turn.example.test:5349'],
      turnSecret: 'north-sea-secret',
      turnTtlSeconds: 3600,
    };
    const { iceServers } = iceServersFor(config, 42, now);
    const username = `${now.getTime() / 1000 + 3600}:42`;
    expect(iceServers).toEqual([
      { urls: config.stunUrls },
      { urls: config.turnUrls, username, credential: toBase64(hmacSha1(utf8('north-sea-secret'), utf8(username))) },
    ]);
  });
});

describe('ICE configuration', () => {
  it('defaults to no STUN, no TURN and a 3600 s credential lifetime', () => {
    expect(loadConfig({}).webrtc).toEqual({ stunUrls: [], turnUrls: [], turnSecret: undefined, turnTtlSeconds: 3600 });
  });

  it('splits comma-separated STUN and TURN URLs', () => {
    const c = loadConfig({
      STUN_URLS: 'stun:a.test:3478, stuns:b.test',
      TURN_URLS: 'turn:a.test:3478?transport=udp,turns:a.test:5349',
      TURN_SECRET: 's3cret'.repeat(6),
      TURN_TTL_SECONDS: '600',
    });
    expect(c.webrtc).toEqual({
      stunUrls: ['stun:a.test:3478', 'stuns:b.test'],
      turnUrls: ['turn:a.test:3478?transport=udp', 'turns:a.test:5349'],
      turnSecret: 's3cret'.repeat(6),
      turnTtlSeconds: 600,
    });
  });

  it.each([
    [{ STUN_URLS: 'http://stun.test' }, 'STUN_URLS'],
    [{ TURN_URLS: 'stun:a.test', TURN_SECRET: 's' }, 'TURN_URLS'],
    [{ TURN_URLS: 'turn:a.test' }, 'TURN_SECRET'],
    [{ TURN_TTL_SECONDS: '10' }, 'TURN_TTL_SECONDS'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(variable));
  });
});
