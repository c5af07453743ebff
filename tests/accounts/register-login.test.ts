import jwt from 'jsonwebtoken';
import { sha256 } from '../../src/lib/ids';
import { prisma } from '../helpers/db';
import { createUser, unique } from '../helpers/factories';
import { api } from '../helpers/server';
import { until } from '../helpers/server-process';
import { codeFromMail, installSmtpCapture, tokenFromLink, type SmtpCapture } from '../helpers/smtp';
import { testConfig, withTestContainer } from '../helpers/container';

const USER_FIELDS = [
  'avatar',
  'city',
  'country',
  'createdAt',
  'email',
  'emailVerified',
  'facebookUrl',
  'firstName',
  'id',
  'instagramUrl',
  'isAdmin',
  'lastName',
  'registryId',
  'tiktokUrl',
  'username',
  'youtubeUrl',
].sort();

function newAccount() {
  const username = unique('dancer_');
  return { username, email: `${username}@example.test`, password: 'secret123' };
}

describe('registration', () => {
  let smtp: SmtpCapture;
  installSmtpCapture((capture) => (smtp = capture));

  it('creates the account (201, data { token, user }) storing only hashes, and mails link and code', async () => {
    const account = newAccount();
    const res = await api()
      .post('/api/auth/register')
      .send({ ...account, firstName: 'Ada', lastName: 'Lovelace', registryId: '29012' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data).sort()).toEqual(['token', 'user']);
    const { user, token } = res.body.data;
    expect(Object.keys(user).sort()).toEqual(USER_FIELDS);
    expect(user).toMatchObject({
      username: account.username,
      email: account.email,
      firstName: 'Ada',
      lastName: 'Lovelace',
      registryId: '29012',
      emailVerified: false,
      isAdmin: false,
    });
    // the service's own avatar route under PUBLIC_URL (default http://localhost:<PORT>), never a third party
    expect(user.avatar).toBe(`http://localhost:${testConfig().port}/api/avatars/${account.username}.svg`);
    const payload = jwt.verify(token, process.env.JWT_SECRET!, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    expect(payload.sub).toBe(String(user.id));
    expect(payload.exp! - payload.iat!).toBe(24 * 60 * 60);

    // the link and code are created (their hashes stored) when the mail is sent (docs/security-hardening.md)
    const mail = await smtp.mailTo(account.email);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.passwordHash).toMatch(/^\$2[ab]\$/);
    expect(row.passwordHash).not.toContain(account.password);
    expect(row.verificationTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.verificationCodeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.verificationExpiresAt!.getTime() - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);

    expect(mail.text).toContain('http://frontend.test/verify-email?token=');
    expect(mail.html).toContain('http://frontend.test/verify-email?token=');
    const linkToken = tokenFromLink(mail.text, '/verify-email');
    expect(linkToken.length).toBeGreaterThanOrEqual(43); // 32 random bytes, base64url
    const code = codeFromMail(mail.text);
    expect(mail.html).toContain(code);
    // The mail holds the secrets whose hashes are stored, never the other way round.
    expect(sha256(linkToken)).toBe(row.verificationTokenHash);
    expect(sha256(code)).toBe(row.verificationCodeHash);

    const logged = await prisma.activityLog.findFirst({ where: { userId: user.id, action: 'register' } });
    expect(logged).toMatchObject({ category: 'auth', success: true, username: account.username });
  });

  it('normalizes the e-mail by trimming and lower-casing only', async () => {
    const account = newAccount();
    const res = await api()
      .post('/api/auth/register')
      .send({ ...account, email: `  First.Last+Tag.${account.username.toUpperCase()}@Example.TEST ` });
    expect(res.status).toBe(201);
    expect(res.body.data.user.email).toBe(`first.last+tag.${account.username.toLowerCase()}@example.test`);
  });

  it('ignores isAdmin and emailVerified in the body (no mass assignment)', async () => {
    const account = newAccount();
    const res = await api()
      .post('/api/auth/register')
      .send({ ...account, isAdmin: true, emailVerified: true, failedLoginAttempts: 99 });
    expect(res.status).toBe(201);
    const row = await prisma.user.findUniqueOrThrow({ where: { username: account.username } });
    expect(row).toMatchObject({ isAdmin: false, emailVerified: false, failedLoginAttempts: 0 });
  });

  it.each([
    ['username too short', { username: 'ab' }, 'username'],
    ['username too long', { username: 'a'.repeat(51) }, 'username'],
    ['username with a dash', { username: 'bad-name' }, 'username'],
    ['username with a non-ASCII letter', { username: 'zażółć' }, 'username'],
    ['username missing', { username: undefined }, 'username'],
    ['username not a string', { username: 12345 }, 'username'],
    ['invalid e-mail', { email: 'not-an-email' }, 'email'],
    ['e-mail missing', { email: undefined }, 'email'],
    ['password too short', { password: '12345' }, 'password'],
    ['password missing', { password: undefined }, 'password'],
    ['password not a string', { password: 123456 }, 'password'],
    ['registryId not digits', { registryId: 'abc' }, 'registryId'],
    ['firstName not a string', { firstName: { a: 1 } }, 'firstName'],
    ['username as an array', { username: ['valid_name'] }, 'username'],
    ['password as an array', { password: ['secret123'] }, 'password'],
    ['email as an array', { email: ['a@example.test'] }, 'email'],
  ])('refuses %s with 400 "Validation failed"', async (_name, override, field) => {
    const account = { ...newAccount(), ...override };
    const res = await api().post('/api/auth/register').send(account);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'Validation failed', code: 'VALIDATION_ERROR' });
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await prisma.user.count({ where: { email: typeof account.email === 'string' ? account.email : '' } })).toBe(
      0,
    );
  });

  it('accepts a username of exactly 3 and of exactly 50 characters', async () => {
    for (const username of [`u${unique('').slice(-2)}`, `x${unique('')}`.padEnd(50, '_')]) {
      const res = await api()
        .post('/api/auth/register')
        .send({ username, email: `${unique('e')}@example.test`, password: 'secret1' });
      expect(res.status).toBe(201);
    }
  });

  it('refuses a duplicate e-mail (409 "Email already registered") and username (409 "Username already taken")', async () => {
    const account = newAccount();
    expect((await api().post('/api/auth/register').send(account)).status).toBe(201);
    const sameEmail = await api()
      .post('/api/auth/register')
      .send({ ...newAccount(), email: account.email.toUpperCase() });
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.body).toMatchObject({ success: false, error: 'Email already registered', code: 'EMAIL_TAKEN' });
    const sameName = await api()
      .post('/api/auth/register')
      .send({ ...newAccount(), username: account.username });
    expect(sameName.status).toBe(409);
    expect(sameName.body).toMatchObject({ success: false, error: 'Username already taken', code: 'USERNAME_TAKEN' });
  });

  it('refuses a username that differs only in case (409 "Username already taken") and keeps the spelling given', async () => {
    const account = { ...newAccount(), username: unique('Alice_') };
    const first = await api().post('/api/auth/register').send(account);
    expect(first.status).toBe(201);
    expect(first.body.data.user.username).toBe(account.username);
    const lower = await api()
      .post('/api/auth/register')
      .send({ ...newAccount(), username: account.username.toLowerCase() });
    expect(lower.status).toBe(409);
    expect(lower.body).toMatchObject({ success: false, error: 'Username already taken', code: 'USERNAME_TAKEN' });
    const upper = await api()
      .post('/api/auth/register')
      .send({ ...newAccount(), username: account.username.toUpperCase() });
    expect(upper.status).toBe(409);
    expect(await prisma.user.count({ where: { username: { equals: account.username, mode: 'insensitive' } } })).toBe(1);
  });

  it('refuses a registryId that is a number, not a string (400 with details)', async () => {
    const account = newAccount();
    const res = await api()
      .post('/api/auth/register')
      .send({ ...account, registryId: 12345 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'registryId' })]);
    expect(await prisma.user.count({ where: { email: account.email } })).toBe(0);
  });

  it('lets exactly one of several concurrent identical registrations succeed, the others get 409', async () => {
    const account = newAccount();
    const results = await Promise.all(Array.from({ length: 6 }, () => api().post('/api/auth/register').send(account)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await prisma.user.count({ where: { email: account.email } })).toBe(1);
  });

  it('answers 201 while the SMTP server refuses mail, and sends the queued verification mail once it is back', async () => {
    const account = newAccount();
    const refusedBefore = smtp.refused;
    smtp.setDown(true);
    try {
      const res = await api().post('/api/auth/register').send(account);
      expect(res.status).toBe(201);
      await until(async () => smtp.refused > refusedBefore);
    } finally {
      smtp.setDown(false);
    }
    const mail = await smtp.mailTo(account.email, 30_000);
    const verify = await api()
      .get('/api/auth/verify-email')
      .query({ token: tokenFromLink(mail.text, '/verify-email') });
    expect(verify.status).toBe(200);
    expect((await prisma.user.findUniqueOrThrow({ where: { email: account.email } })).emailVerified).toBe(true);
  });
});

describe('login', () => {
  it('answers 200 with data { token, user } for the right password', async () => {
    const { user, password } = await createUser();
    const res = await api()
      .post('/api/auth/login')
      .send({ email: ` ${user.email.toUpperCase()} `, password });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['token', 'user']);
    expect(Object.keys(res.body.data.user).sort()).toEqual(USER_FIELDS);
    expect(res.body.data.user.id).toBe(user.id);
    const me = await api().get('/api/users/me').set('Authorization', `Bearer ${res.body.data.token}`);
    expect(me.status).toBe(200);
    expect(await prisma.activityLog.count({ where: { userId: user.id, action: 'login', success: true } })).toBe(1);
  });

  it('answers a wrong password and an unknown e-mail identically (401 "Invalid email or password")', async () => {
    const { user } = await createUser();
    const wrong = await api().post('/api/auth/login').send({ email: user.email, password: 'wrong-password' });
    const unknown = await api()
      .post('/api/auth/login')
      .send({ email: `${unique('nobody')}@example.test`, password: 'wrong-password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ success: false, error: 'Invalid email or password', code: 'INVALID_CREDENTIALS' });
    expect(unknown.body).toEqual(wrong.body);
    expect(await prisma.activityLog.count({ where: { userId: user.id, action: 'login_failed', success: false } })).toBe(
      1,
    );
  });

  it.each([
    ['no e-mail', { password: 'x' }],
    ['no password', { email: 'a@example.test' }],
    ['an e-mail that is an object', { email: { $ne: null }, password: 'x' }],
    ['an empty password', { email: 'a@example.test', password: '' }],
  ])('refuses %s with 400', async (_n, body) => {
    const res = await api().post('/api/auth/login').send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Validation failed');
  });

  it('locks the account at the 5th failed attempt (423 with retryAfter and Retry-After), also for the right password', async () => {
    const { user, password } = await createUser();
    for (let i = 1; i <= 4; i++) {
      const res = await api().post('/api/auth/login').send({ email: user.email, password: 'wrong' });
      expect(res.status).toBe(401);
    }
    const fifth = await api().post('/api/auth/login').send({ email: user.email, password: 'wrong' });
    expect(fifth.status).toBe(423);
    expect(fifth.body).toMatchObject({
      success: false,
      error: 'Account is locked. Try again in 15 minute(s).',
      code: 'ACCOUNT_LOCKED',
    });
    expect(fifth.body.retryAfter).toBeGreaterThan(14 * 60);
    expect(fifth.body.retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(Number(fifth.headers['retry-after'])).toBe(fifth.body.retryAfter);

    const right = await api().post('/api/auth/login').send({ email: user.email, password });
    expect(right.status).toBe(423);
    expect(right.body.error).toMatch(/^Account is locked\. Try again in \d+ minute\(s\)\.$/);

    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.failedLoginAttempts).toBe(5);
    expect(row.lockedUntil!.getTime()).toBeGreaterThan(Date.now() + 14 * 60 * 1000);
    expect(await prisma.activityLog.count({ where: { userId: user.id, action: 'account_locked' } })).toBe(1);
  });

  it('tells the remaining time in minutes, rounded up', async () => {
    const { user } = await createUser();
    await prisma.user.update({
      where: { id: user.id },
      data: { failedLoginAttempts: 5, lockedUntil: new Date(Date.now() + 61_000) },
    });
    const res = await api().post('/api/auth/login').send({ email: user.email, password: 'whatever' });
    expect(res.status).toBe(423);
    expect(res.body.error).toBe('Account is locked. Try again in 2 minute(s).');
  });

  it('unlocks automatically after the lock duration and counts afresh', async () => {
    const { user, password } = await createUser();
    await prisma.user.update({
      where: { id: user.id },
      data: { failedLoginAttempts: 5, lockedUntil: new Date(Date.now() - 1000) },
    });
    const wrong = await api().post('/api/auth/login').send({ email: user.email, password: 'wrong' });
    expect(wrong.status).toBe(401);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).failedLoginAttempts).toBe(1);
    const ok = await api().post('/api/auth/login').send({ email: user.email, password });
    expect(ok.status).toBe(200);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row).toMatchObject({ failedLoginAttempts: 0, lockedUntil: null });
  });

  it('resets the counter on a successful login', async () => {
    const { user, password } = await createUser();
    for (let i = 0; i < 3; i++) await api().post('/api/auth/login').send({ email: user.email, password: 'wrong' });
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).failedLoginAttempts).toBe(3);
    expect((await api().post('/api/auth/login').send({ email: user.email, password })).status).toBe(200);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).failedLoginAttempts).toBe(0);
  });

  it('counts concurrent failed logins exactly (no lost increments)', async () => {
    const { user } = await createUser();
    await prisma.user.update({ where: { id: user.id }, data: { failedLoginAttempts: 0 } });
    const results = await withTestContainer({ lockout: { maxAttempts: 1000, minutes: 15 } }, (c) =>
      Promise.all(
        Array.from({ length: 12 }, () => api(c).post('/api/auth/login').send({ email: user.email, password: 'wrong' })),
      ),
    );
    expect(results.every((r) => r.status === 401)).toBe(true);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).failedLoginAttempts).toBe(12);
  });

  it('gives no token to the right password sent after 18 parallel wrong ones: the lock is decided before comparing', async () => {
    const { user, password } = await createUser();
    const wrong = Array.from({ length: 18 }, () =>
      api().post('/api/auth/login').send({ email: user.email, password: 'wrong' }),
    );
    const right = api().post('/api/auth/login').send({ email: user.email, password });
    const results = await Promise.all([...wrong, right]);
    const statuses = results.map((r) => r.status);
    expect(statuses[18]).toBe(423);
    expect(results[18].body.data).toBeUndefined();
    // at most LOCKOUT_MAX_ATTEMPTS (5) passwords were compared: 4 answered 401, the 5th locked
    expect(statuses.filter((s) => s === 401)).toHaveLength(4);
    expect(statuses.filter((s) => s === 423)).toHaveLength(15);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.failedLoginAttempts).toBe(5);
    expect(row.lockedUntil).not.toBeNull();
  });

  it('never locks the account for ten logins with the right password at once (issue 23): all answer 200', async () => {
    const { user, password } = await createUser();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api().post('/api/auth/login').send({ email: user.email, password })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row).toMatchObject({ failedLoginAttempts: 0, lockedUntil: null });
    expect((await api().post('/api/auth/login').send({ email: user.email, password })).status).toBe(200);
    const audited = await prisma.activityLog.count({ where: { userId: user.id, action: 'login', success: true } });
    expect(audited).toBe(11);
  });

  it('still locks for ten wrong passwords at once (issue 23): 4 × 401, the rest 423, the account locked', async () => {
    const { user, password } = await createUser();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api().post('/api/auth/login').send({ email: user.email, password: 'wrong' })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(4);
    expect(statuses.filter((s) => s === 423)).toHaveLength(6);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).lockedUntil).not.toBeNull();
    expect((await api().post('/api/auth/login').send({ email: user.email, password })).status).toBe(423);
    expect(await prisma.activityLog.count({ where: { userId: user.id, action: 'account_locked' } })).toBe(1);
  });

  it('locks exactly at the maximum under concurrency: 5 parallel failures → 4 × 401 and 1 × 423', async () => {
    const { user } = await createUser();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api().post('/api/auth/login').send({ email: user.email, password: 'wrong' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([401, 401, 401, 401, 423]);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.failedLoginAttempts).toBe(5);
    expect(row.lockedUntil).not.toBeNull();
  });
});

describe('access tokens', () => {
  it('refuses a token without exp with 401 "Invalid or expired token"', async () => {
    const { user } = await createUser();
    const token = jwt.sign({ ev: true }, testConfig().jwt.secret, { algorithm: 'HS256', subject: String(user.id) });
    const res = await api().get('/api/users/me').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'Invalid or expired token', code: 'INVALID_TOKEN' });
  });

  it('refuses a missing or malformed Authorization header with 401 "Authentication required"', async () => {
    for (const header of [undefined, 'Token abc', 'Bearer', 'Bearer not-a-jwt']) {
      const req = api().get('/api/users/me');
      if (header) req.set('Authorization', header);
      const res = await req;
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: 'Authentication required', code: 'AUTH_REQUIRED' });
    }
  });

  it('refuses alg none, a wrong signature, an expired token and a deleted user with 401 "Invalid or expired token"', async () => {
    const { user, token } = await createUser();
    const none = jwt.sign({}, '', { algorithm: 'none', subject: String(user.id) });
    const wrongSig = jwt.sign({}, 'another-secret-another-secret-another-secret', {
      algorithm: 'HS256',
      subject: String(user.id),
    });
    const hs512 = jwt.sign({}, process.env.JWT_SECRET!, { algorithm: 'HS512', subject: String(user.id) });
    const expired = jwt.sign({ exp: Math.floor(Date.now() / 1000) - 5 }, process.env.JWT_SECRET!, {
      subject: String(user.id),
    });
    const tampered = `${token.split('.')[0]}.${Buffer.from(JSON.stringify({ sub: '1', exp: 9999999999 })).toString('base64url')}.${token.split('.')[2]}`;
    for (const t of [none, wrongSig, hs512, expired, tampered]) {
      const res = await api().get('/api/users/me').set('Authorization', `Bearer ${t}`);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' });
    }
    await prisma.user.delete({ where: { id: user.id } });
    const deleted = await api().get('/api/users/me').set('Authorization', `Bearer ${token}`);
    expect(deleted.status).toBe(401);
    expect(deleted.body.error).toBe('Invalid or expired token');
  });
});
