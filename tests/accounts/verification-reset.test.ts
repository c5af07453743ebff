import { sha256 } from '../../src/lib/ids';
import { prisma } from '../helpers/db';
import { createUser, unique } from '../helpers/factories';
import { api } from '../helpers/server';
import { codeFromMail, installSmtpCapture, tokenFromLink, type SmtpCapture } from '../helpers/smtp';

let smtp: SmtpCapture;

installSmtpCapture((capture) => (smtp = capture));

async function registered() {
  const username = unique('verif_');
  const email = `${username}@example.test`;
  const res = await api().post('/api/auth/register').send({ username, email, password: 'secret123' });
  expect(res.status).toBe(201);
  const mail = await smtp.mailTo(email);
  return {
    email,
    id: res.body.data.user.id as number,
    token: res.body.data.token as string,
    link: tokenFromLink(mail.text, '/verify-email'),
    code: codeFromMail(mail.text),
  };
}

const verified = async (id: number) => (await prisma.user.findUniqueOrThrow({ where: { id } })).emailVerified;

describe('e-mail verification by link token', () => {
  it('verifies once (200), clears the stored token and code, and refuses the token a second time', async () => {
    const u = await registered();
    const res = await api().get('/api/auth/verify-email').query({ token: u.link });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: u.id } });
    expect(row).toMatchObject({
      emailVerified: true,
      verificationTokenHash: null,
      verificationCodeHash: null,
      verificationExpiresAt: null,
    });
    const again = await api().get('/api/auth/verify-email').query({ token: u.link });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      success: false,
      error: 'Invalid or expired verification token',
      code: 'INVALID_VERIFICATION_TOKEN',
    });
    expect(await prisma.activityLog.count({ where: { userId: u.id, action: 'email_verify', success: true } })).toBe(1);
  });

  it('refuses an expired token with 400 and leaves the account unverified', async () => {
    const u = await registered();
    await prisma.user.update({ where: { id: u.id }, data: { verificationExpiresAt: new Date(Date.now() - 1000) } });
    const res = await api().get('/api/auth/verify-email').query({ token: u.link });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid or expired verification token');
    expect(await verified(u.id)).toBe(false);
  });

  it('refuses an unknown token (400) and a missing token (400 "Validation failed")', async () => {
    expect(
      (
        await api()
          .get('/api/auth/verify-email')
          .query({ token: 'x'.repeat(43) })
      ).status,
    ).toBe(400);
    const missing = await api().get('/api/auth/verify-email');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('Validation failed');
  });
});

describe('e-mail verification by code', () => {
  it('verifies with the 6-digit code from the mail', async () => {
    const u = await registered();
    const res = await api().post('/api/auth/verify-code').send({ email: u.email.toUpperCase(), code: u.code });
    expect(res.status).toBe(200);
    expect(await verified(u.id)).toBe(true);
  });

  it('refuses a wrong code (400) and voids the code after 5 wrong attempts until a resend', async () => {
    const u = await registered();
    const wrong = u.code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const res = await api().post('/api/auth/verify-code').send({ email: u.email, code: wrong });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Invalid or expired verification code');
    }
    const right = await api().post('/api/auth/verify-code').send({ email: u.email, code: u.code });
    expect(right.status).toBe(400);
    expect(await verified(u.id)).toBe(false);

    expect((await api().post('/api/auth/resend-verification').send({ email: u.email })).status).toBe(200);
    const mail = await smtp.mailTo(u.email);
    const fresh = codeFromMail(mail.text);
    const ok = await api().post('/api/auth/verify-code').send({ email: u.email, code: fresh });
    expect(ok.status).toBe(200);
    expect(await verified(u.id)).toBe(true);
  });

  it('counts parallel guesses exactly: at most 5 of 20 are even compared', async () => {
    const u = await registered();
    const wrong = u.code === '000000' ? '111111' : '000000';
    await Promise.all(
      Array.from({ length: 20 }, () => api().post('/api/auth/verify-code').send({ email: u.email, code: wrong })),
    );
    expect((await prisma.user.findUniqueOrThrow({ where: { id: u.id } })).verificationAttempts).toBe(5);
  });

  it('refuses an expired code', async () => {
    const u = await registered();
    await prisma.user.update({ where: { id: u.id }, data: { verificationExpiresAt: new Date(Date.now() - 1) } });
    const res = await api().post('/api/auth/verify-code').send({ email: u.email, code: u.code });
    expect(res.status).toBe(400);
    expect(await verified(u.id)).toBe(false);
  });

  it.each([
    ['5 digits', '12345'],
    ['letters', 'abcdef'],
    ['7 digits', '1234567'],
  ])('refuses a code of %s with 400 "Validation failed"', async (_n, code) => {
    const res = await api().post('/api/auth/verify-code').send({ email: 'a@example.test', code });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Validation failed');
  });

  it('answers an unknown e-mail like a wrong code', async () => {
    const res = await api()
      .post('/api/auth/verify-code')
      .send({ email: `${unique('x')}@example.test`, code: '123456' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid or expired verification code');
  });
});

describe('resend verification', () => {
  it('replaces token and code: the old ones stop working', async () => {
    const u = await registered();
    const res = await api().post('/api/auth/resend-verification').send({ email: u.email });
    expect(res.status).toBe(200);
    const mail = await smtp.mailTo(u.email);
    const newLink = tokenFromLink(mail.text, '/verify-email');
    expect(newLink).not.toBe(u.link);
    expect((await api().get('/api/auth/verify-email').query({ token: u.link })).status).toBe(400);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: u.id } });
    expect(row.verificationTokenHash).toBe(sha256(newLink));
    expect((await api().get('/api/auth/verify-email').query({ token: newLink })).status).toBe(200);
  });

  it('answers the same body for an unknown address, a verified one and an unverified one, mailing only the last', async () => {
    const u = await registered();
    const known = await createUser({ emailVerified: true });
    const a = await api()
      .post('/api/auth/resend-verification')
      .send({ email: `${unique('ghost')}@example.test` });
    const b = await api().post('/api/auth/resend-verification').send({ email: known.user.email });
    const c = await api().post('/api/auth/resend-verification').send({ email: u.email });
    expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
    expect(a.body).toEqual(c.body);
    expect(b.body).toEqual(c.body);
    await smtp.mailTo(u.email);
    await expect(smtp.mailTo(known.user.email, 300)).rejects.toThrow();
  });

  it('refuses an invalid e-mail with 400', async () => {
    expect((await api().post('/api/auth/resend-verification').send({ email: 'nope' })).status).toBe(400);
  });
});

describe('password reset', () => {
  async function requestReset(email: string) {
    const res = await api().post('/api/auth/request-password-reset').send({ email });
    expect(res.status).toBe(200);
    const mail = await smtp.mailTo(email);
    expect(mail.html).toContain('http://frontend.test/reset-password?token=');
    return tokenFromLink(mail.text, '/reset-password');
  }

  it('resets the password with the mailed link token, once; the token is stored hashed and valid 1 h', async () => {
    const { user } = await createUser();
    const token = await requestReset(user.email);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.resetTokenHash).toBe(sha256(token));
    const ttl = row.resetExpiresAt!.getTime() - Date.now();
    expect(ttl).toBeGreaterThan(59 * 60 * 1000);
    expect(ttl).toBeLessThanOrEqual(60 * 60 * 1000);

    const res = await api().post('/api/auth/reset-password').send({ token, newPassword: 'brand-new-pw' });
    expect(res.status).toBe(200);
    expect((await api().post('/api/auth/login').send({ email: user.email, password: 'brand-new-pw' })).status).toBe(
      200,
    );
    expect((await api().post('/api/auth/login').send({ email: user.email, password: 'secret123' })).status).toBe(401);

    const again = await api().post('/api/auth/reset-password').send({ token, newPassword: 'another-pw' });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('Invalid or expired reset token');
    expect(
      await prisma.activityLog.count({ where: { userId: user.id, action: 'password_reset', success: true } }),
    ).toBe(1);
  });

  it('clears the lock and the failed-attempt counter', async () => {
    const { user } = await createUser();
    await prisma.user.update({
      where: { id: user.id },
      data: { failedLoginAttempts: 5, lockedUntil: new Date(Date.now() + 15 * 60 * 1000) },
    });
    const token = await requestReset(user.email);
    expect((await api().post('/api/auth/reset-password').send({ token, newPassword: 'unlocked-pw' })).status).toBe(200);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row).toMatchObject({ failedLoginAttempts: 0, lockedUntil: null, resetTokenHash: null });
    expect((await api().post('/api/auth/login').send({ email: user.email, password: 'unlocked-pw' })).status).toBe(200);
  });

  it('refuses an expired token', async () => {
    const { user } = await createUser();
    const token = await requestReset(user.email);
    await prisma.user.update({ where: { id: user.id }, data: { resetExpiresAt: new Date(Date.now() - 1) } });
    const res = await api().post('/api/auth/reset-password').send({ token, newPassword: 'whatever1' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid or expired reset token');
  });

  it('lets only one of two concurrent uses of the same token succeed', async () => {
    const { user } = await createUser();
    const token = await requestReset(user.email);
    const results = await Promise.all([
      api().post('/api/auth/reset-password').send({ token, newPassword: 'first-pw-1' }),
      api().post('/api/auth/reset-password').send({ token, newPassword: 'second-pw-2' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('answers the same body for an unknown address and mails nothing', async () => {
    const { user } = await createUser();
    const ghost = `${unique('ghost')}@example.test`;
    const a = await api().post('/api/auth/request-password-reset').send({ email: ghost });
    const b = await api().post('/api/auth/request-password-reset').send({ email: user.email });
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    await smtp.mailTo(user.email);
    await expect(smtp.mailTo(ghost, 300)).rejects.toThrow();
  });

  it.each([
    ['a short new password', { token: 'abc', newPassword: '12345' }, 'newPassword'],
    ['no token', { newPassword: 'longenough' }, 'token'],
    ['a token that is a number', { token: 5, newPassword: 'longenough' }, 'token'],
  ])('refuses %s with 400 "Validation failed"', async (_n, body, field) => {
    const res = await api().post('/api/auth/reset-password').send(body);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});
