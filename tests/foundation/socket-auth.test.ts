import jwt from 'jsonwebtoken';
import { prisma } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { useTestServer } from '../helpers/server';
import { connectSocket, nextEvent, receivesWithin } from '../helpers/socket';

describe('Socket.IO authentication', () => {
  const server = useTestServer();

  it('refuses a connection without a token with "Authentication required"', async () => {
    await expect(connectSocket(server.url)).rejects.toThrow('Authentication required');
  });

  it('refuses a wrong signature, alg none and an expired token with "Invalid or expired token"', async () => {
    const { user } = await createUser();
    const wrong = jwt.sign({}, 'another-secret-another-secret-another', { subject: String(user.id) });
    const none = jwt.sign({}, '', { algorithm: 'none', subject: String(user.id) });
    const expired = jwt.sign({ exp: Math.floor(Date.now() / 1000) - 10 }, process.env.JWT_SECRET!, {
      subject: String(user.id),
    });
    for (const token of [wrong, none, expired, 'garbage']) {
      await expect(connectSocket(server.url, token)).rejects.toThrow('Invalid or expired token');
    }
  });

  it('refuses the token of a deleted user', async () => {
    const { user, token } = await createUser();
    await prisma.user.delete({ where: { id: user.id } });
    await expect(connectSocket(server.url, token)).rejects.toThrow('Invalid or expired token');
  });

  it('accepts auth.token and the Authorization header, and joins the personal room user_<id>', async () => {
    const alice = await createUser();
    const bob = await createUser();
    const a = await connectSocket(server.url, alice.token);
    const b = await connectSocket(server.url, bob.token, { header: true });
    try {
      const got = nextEvent(a, 'error_message');
      const bobGot = receivesWithin(b, 'error_message', 300);
      server.container.notifier.toUser(alice.user.id, 'error_message', { error: 'ping' });
      await expect(got).resolves.toEqual({ error: 'ping' });
      await expect(bobGot).resolves.toBe(false);
    } finally {
      a.close();
      b.close();
    }
  });
});
