import { systemActor } from '../../src/lib/actor';
import { until } from '../helpers/server-process';
import bcrypt from 'bcryptjs';
import { sha256 } from '../../src/lib/ids';
import type { Clock } from '../../src/lib/clock';
import { AppError } from '../../src/lib/errors';
import { createTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createUser, unique } from '../helpers/factories';
import { api } from '../helpers/server';

/** A clock fixed `offsetMs` away from the real time. */
const clockAt = (offsetMs: number): Clock => ({ now: () => new Date(Date.now() + offsetMs) });

describe('AuthService', () => {
  afterEach(() => jest.restoreAllMocks());

  it('hashes the dummy password for unknown e-mails on first use only, not when the container is built', async () => {
    const hash = jest.spyOn(bcrypt, 'hash');
    const container = createTestContainer();
    try {
      expect(hash).not.toHaveBeenCalled();
      for (let i = 0; i < 2; i++) {
        const res = await api(container)
          .post('/api/auth/login')
          .send({ email: `${unique('ghost')}@example.test`, password: 'whatever1' });
        expect(res.status).toBe(401);
      }
      expect(hash).toHaveBeenCalledTimes(1);
    } finally {
      await container.close();
    }
  });

  it('POST /auth/reset-password answers 400 once the injected clock is past the link expiry', async () => {
    const { user } = await createUser();
    const token = unique('reset');
    await prisma.user.update({
      where: { id: user.id },
      data: { resetTokenHash: sha256(token), resetExpiresAt: new Date(Date.now() + 60 * 60 * 1000) },
    });
    const later = createTestContainer({}, { clock: clockAt(2 * 60 * 60 * 1000) });
    try {
      const res = await api(later).post('/api/auth/reset-password').send({ token, newPassword: 'brand-new-pw' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_RESET_TOKEN');
      expect(
        await prisma.activityLog.count({ where: { userId: user.id, action: 'password_reset', success: false } }),
      ).toBe(1);
    } finally {
      await later.close();
    }
  });

  it('POST /auth/register stamps the verification expiry 24 h after the injected clock', async () => {
    const offset = 3 * 24 * 60 * 60 * 1000;
    const container = createTestContainer({}, { clock: clockAt(offset) });
    try {
      const username = unique('clk_');
      const before = Date.now();
      const res = await api(container)
        .post('/api/auth/register')
        .send({ username, email: `${username}@example.test`, password: 'secret123' });
      expect(res.status).toBe(201);
      // the link and code are created when the mail is sent (docs/security-hardening.md)
      await container.mailQueue.startWorker();
      await until(
        async () => (await prisma.user.findUniqueOrThrow({ where: { username } })).verificationExpiresAt !== null,
      );
      const row = await prisma.user.findUniqueOrThrow({ where: { username } });
      const expected = before + offset + 24 * 60 * 60 * 1000;
      expect(row.verificationExpiresAt!.getTime()).toBeGreaterThanOrEqual(expected);
      expect(row.verificationExpiresAt!.getTime()).toBeLessThan(expected + 60 * 60 * 1000);
    } finally {
      await container.close();
    }
  });
});

describe('OperatorAccountsService.promoteToAdmin (CLI user:promote)', () => {
  it('makes the user of a trimmed, mixed-case address an admin', async () => {
    const { user } = await createUser();
    const container = createTestContainer();
    try {
      const promoted = await container.operatorAccounts.promoteToAdmin(systemActor('test'), {
        email: `  ${user.email.toUpperCase()} `,
      });
      expect(promoted).toMatchObject({ id: user.id, isAdmin: true });
      expect(promoted).not.toHaveProperty('passwordHash');
      expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).isAdmin).toBe(true);
    } finally {
      await container.close();
    }
  });

  it('answers USER_NOT_FOUND naming the address when nobody has it', async () => {
    const container = createTestContainer();
    const email = `${unique('nobody')}@example.test`;
    try {
      const err = await container.operatorAccounts
        .promoteToAdmin(systemActor('test'), { email })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'USER_NOT_FOUND', status: 404, message: `No user with e-mail ${email}` });
    } finally {
      await container.close();
    }
  });
});
