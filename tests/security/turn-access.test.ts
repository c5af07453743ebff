import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { Container } from '../../src/container';
import { createTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { api } from '../helpers/server';

/**
 * TURN credentials (docs/security-hardening.md): the `turn:` entry with username and credential
 * only for a member of at least one accepted or completed match, at any event; everyone else gets
 * the STUN entries only (200, same ttlSeconds).
 */

const webrtc = {
  stunUrls: ['stun:turn.example.test:3478'],
  turnUrls: ['turn:turn.example.test:3478?transport=udp'],
  turnSecret: 'x'.repeat(40),
  turnTtlSeconds: 600,
};
const STUN_ONLY = { iceServers: [{ urls: webrtc.stunUrls }], ttlSeconds: 600 };

let c: Container;
beforeAll(() => {
  c = createTestContainer({ webrtc });
});
afterAll(async () => {
  await c.close();
});

const iceServers = async (auth: string) => {
  const res = await api(c).get('/api/webrtc/ice-servers').set('Authorization', auth);
  expect(res.status).toBe(200);
  return res.body.data as {
    iceServers: Array<{ urls: string[]; username?: string; credential?: string }>;
    ttlSeconds: number;
  };
};
const hasTurn = (view: { iceServers: Array<{ urls: string[]; username?: string }> }) =>
  view.iceServers.some((s) => s.urls.some((u) => u.startsWith('turn')) && s.username !== undefined);

it('gives an unverified account in no match STUN only', async () => {
  const { auth } = await createUser({ emailVerified: false });
  expect(await iceServers(auth)).toEqual(STUN_ONLY);
});

it.each(['pending'] as const)('gives both members of a %s match STUN only', async (status) => {
  const { alice, bob, event } = await createTrio();
  await insertMatch(event, alice.user, bob.user, status);
  expect(await iceServers(alice.auth)).toEqual(STUN_ONLY);
  expect(await iceServers(bob.auth)).toEqual(STUN_ONLY);
});

it.each(['accepted', 'completed'] as const)(
  'gives both members of a %s match the TURN entry with credentials, and not a third participant',
  async (status) => {
    const { alice, bob, carol, event } = await createTrio();
    await insertMatch(event, alice.user, bob.user, status);
    for (const member of [alice, bob]) {
      const view = await iceServers(member.auth);
      expect(view.ttlSeconds).toBe(600);
      expect(view.iceServers[0]).toEqual({ urls: webrtc.stunUrls });
      expect(view.iceServers[1]).toMatchObject({
        urls: webrtc.turnUrls,
        username: expect.stringMatching(new RegExp(`^\\d+:${member.user.id}$`)),
      });
      expect(typeof view.iceServers[1].credential).toBe('string');
    }
    expect(hasTurn(await iceServers(carol.auth))).toBe(false);
  },
);

it('takes the TURN entry away once the accepted match is deleted', async () => {
  const { alice, bob, event } = await createTrio();
  const match = await insertMatch(event, alice.user, bob.user, 'accepted');
  expect(hasTurn(await iceServers(alice.auth))).toBe(true);
  const res = await api(c).delete(`/api/matches/${match.slug}`).set('Authorization', alice.auth);
  expect(res.status).toBe(200);
  expect(await prisma.match.count({ where: { id: match.id } })).toBe(0);
  expect(await iceServers(alice.auth)).toEqual(STUN_ONLY);
});

describe("the compose file's coturn", () => {
  const compose = parse(readFileSync(path.join(__dirname, '../../docker-compose.yml'), 'utf8')) as {
    services: Record<string, { command?: string[] }>;
  };
  const command = compose.services.coturn?.command ?? [];
  const denied = command
    .filter((a) => a.startsWith('--denied-peer-ip='))
    .map((a) => a.slice('--denied-peer-ip='.length));

  it.each([
    ['10/8', '10.0.0.0-10.255.255.255'],
    ['172.16/12', '172.16.0.0-172.31.255.255'],
    ['192.168/16', '192.168.0.0-192.168.255.255'],
    ['127/8', '127.0.0.0-127.255.255.255'],
    ['169.254/16', '169.254.0.0-169.254.255.255'],
    ['::1', '::1'],
    ['fc00::/7', 'fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['fe80::/10', 'fe80::-febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ])('refuses relaying to %s', (_range, entry) => {
    expect(denied).toContain(entry);
  });

  it('relays UDP only, with quotas per user and in all', () => {
    expect(command).toContain('--no-tcp-relay');
    expect(command.some((a) => /^--user-quota=\d+$/.test(a))).toBe(true);
    expect(command.some((a) => /^--total-quota=\d+$/.test(a))).toBe(true);
  });
});
