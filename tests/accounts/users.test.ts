import { randomSlug } from '../../src/lib/ids';
import { prisma } from '../helpers/db';
import { createEvent, createUser, unique, type TestUser } from '../helpers/factories';
import { api } from '../helpers/server';
import { codeFromMail, installSmtpCapture, type SmtpCapture } from '../helpers/smtp';

let smtp: SmtpCapture;

installSmtpCapture((capture) => (smtp = capture));

async function match(a: TestUser, b: TestUser, status: string, eventId?: number) {
  const event = eventId ?? (await createEvent()).id;
  return prisma.match.create({
    data: { slug: randomSlug(), eventId: event, user1Id: a.user.id, user2Id: b.user.id, status },
  });
}

async function rate(
  rater: TestUser,
  rated: TestUser,
  score: number,
  extra: { createdAt?: Date; comment?: string } = {},
) {
  const m = await match(rater, rated, 'accepted');
  return prisma.rating.create({
    data: { matchId: m.id, raterId: rater.user.id, ratedId: rated.user.id, eventId: m.eventId, score, ...extra },
  });
}

describe('GET /users/me', () => {
  it('answers the user object itself with stats counted by the database', async () => {
    const me = await createUser({ firstName: 'Me', city: 'Warsaw' });
    const a = await createUser();
    const b = await createUser();
    const c = await createUser();
    await match(me, a, 'pending');
    await match(b, me, 'pending'); // incoming pending counts too
    await match(me, c, 'completed');
    await rate(a, me, 5);
    await rate(b, me, 4);
    await rate(c, me, 4);
    await rate(me, a, 3);
    // ratings above created 4 more accepted matches, 3 of which involve `me`
    const res = await api().get('/api/users/me').set('Authorization', me.auth);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: me.user.id,
      username: me.user.username,
      email: me.user.email,
      firstName: 'Me',
      city: 'Warsaw',
      emailVerified: true,
      isAdmin: false,
    });
    expect(res.body.data.stats).toEqual({
      matches: { total: 7, pending: 2, accepted: 4, completed: 1 },
      ratings: { received: 3, given: 1, average: 4.33 },
      recordings: { done: 0, received: 0 },
    });
  });

  it('has zero statistics and a null average for a new user', async () => {
    const me = await createUser();
    const res = await api().get('/api/users/me').set('Authorization', me.auth);
    expect(res.body.data.stats).toEqual({
      matches: { total: 0, pending: 0, accepted: 0, completed: 0 },
      ratings: { received: 0, given: 0, average: null },
      recordings: { done: 0, received: 0 },
    });
  });
});

describe('PATCH /users/me', () => {
  it('updates names, location and https social links, ignoring isAdmin and emailVerified', async () => {
    const me = await createUser({ emailVerified: false });
    const res = await api().patch('/api/users/me').set('Authorization', me.auth).send({
      firstName: ' Ann ',
      lastName: 'Lee',
      city: 'Kraków',
      country: 'Poland',
      instagramUrl: 'https://instagram.com/ann',
      facebookUrl: 'https://facebook.com/ann',
      youtubeUrl: 'https://youtube.com/@ann',
      tiktokUrl: 'https://tiktok.com/@ann',
      isAdmin: true,
      emailVerified: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      firstName: 'Ann',
      lastName: 'Lee',
      city: 'Kraków',
      country: 'Poland',
      tiktokUrl: 'https://tiktok.com/@ann',
      isAdmin: false,
      emailVerified: false,
    });
    expect(res.body.data.token).toBeUndefined();
    const row = await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } });
    expect(row).toMatchObject({
      firstName: 'Ann',
      instagramUrl: 'https://instagram.com/ann',
      isAdmin: false,
      emailVerified: false,
    });
    expect(await prisma.activityLog.count({ where: { userId: me.user.id, action: 'profile_update' } })).toBe(1);
  });

  it('clears a field with null or an empty string', async () => {
    const me = await createUser({ city: 'Berlin', firstName: 'X' });
    const res = await api().patch('/api/users/me').set('Authorization', me.auth).send({ city: null, firstName: '' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ city: null, firstName: null });
  });

  it.each([
    ['username', { username: 'newname' }, 'username'],
    ['an http social link', { instagramUrl: 'http://instagram.com/x' }, 'instagramUrl'],
    ['a javascript: link', { youtubeUrl: 'javascript:alert(1)' }, 'youtubeUrl'],
    ['a link that is not a URL', { facebookUrl: 'my page' }, 'facebookUrl'],
    ['an invalid e-mail', { email: 'broken@' }, 'email'],
    ['a too long first name', { firstName: 'x'.repeat(101) }, 'firstName'],
    ['a city that is a number', { city: 5 }, 'city'],
    ['a first name given as an array', { firstName: ['a', 'b'] }, 'firstName'],
    ['a social link given as an array', { tiktokUrl: ['https://tiktok.com/@a'] }, 'tiktokUrl'],
  ])('refuses %s with 400', async (_n, body, field) => {
    const me = await createUser();
    const res = await api().patch('/api/users/me').set('Authorization', me.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } });
    expect(row.username).toBe(me.user.username);
  });

  it('on a new e-mail: emailVerified=false, new token and code mailed, fresh JWT in data.token', async () => {
    const me = await createUser({ emailVerified: true });
    const newEmail = `${unique('moved')}@example.test`;
    const res = await api()
      .patch('/api/users/me')
      .set('Authorization', me.auth)
      .send({ email: ` ${newEmail.toUpperCase()} `, currentPassword: me.password });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ email: newEmail, emailVerified: false });
    expect(typeof res.body.data.token).toBe('string');
    expect(res.body.data.token).not.toBe(me.token);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } });
    expect(row).toMatchObject({ email: newEmail, emailVerified: false });
    const mail = await smtp.mailTo(newEmail);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).verificationTokenHash).not.toBeNull();
    const code = codeFromMail(mail.text);
    const me2 = await api().get('/api/users/me').set('Authorization', `Bearer ${res.body.data.token}`);
    expect(me2.body.data.emailVerified).toBe(false);
    expect((await api().post('/api/auth/verify-code').send({ email: newEmail, code })).status).toBe(200);
    expect(await prisma.activityLog.count({ where: { userId: me.user.id, action: 'email_change' } })).toBe(1);
  });

  it('keeps emailVerified when the same e-mail is sent again', async () => {
    const me = await createUser({ emailVerified: true });
    const res = await api().patch('/api/users/me').set('Authorization', me.auth).send({ email: me.user.email });
    expect(res.status).toBe(200);
    expect(res.body.data.emailVerified).toBe(true);
    expect(res.body.data.token).toBeUndefined();
  });

  it('refuses an e-mail of another account with 409 "Email already registered"', async () => {
    const me = await createUser();
    const other = await createUser();
    const res = await api()
      .patch('/api/users/me')
      .set('Authorization', me.auth)
      .send({ email: other.user.email, currentPassword: me.password });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, error: 'Email already registered', code: 'EMAIL_TAKEN' });
    expect((await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).email).toBe(me.user.email);
  });

  it('refuses an e-mail change without currentPassword (400 with details), changing nothing', async () => {
    const me = await createUser();
    const res = await api()
      .patch('/api/users/me')
      .set('Authorization', me.auth)
      .send({ email: `${unique('takeover')}@example.test`, firstName: 'X' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'currentPassword' })]);
    expect(await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).toMatchObject({
      email: me.user.email,
      firstName: null,
    });
  });

  it('refuses an e-mail change with a wrong currentPassword (400 "Current password is incorrect")', async () => {
    const me = await createUser();
    const res = await api()
      .patch('/api/users/me')
      .set('Authorization', me.auth)
      .send({ email: `${unique('takeover')}@example.test`, currentPassword: 'not-my-password' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'Current password is incorrect', code: 'WRONG_PASSWORD' });
    expect((await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).email).toBe(me.user.email);
    expect(
      await prisma.activityLog.count({ where: { userId: me.user.id, action: 'email_change', success: false } }),
    ).toBe(1);
  });

  it('tells the old address of an e-mail change by mail', async () => {
    const me = await createUser();
    const newEmail = `${unique('moved')}@example.test`;
    const res = await api()
      .patch('/api/users/me')
      .set('Authorization', me.auth)
      .send({ email: newEmail, currentPassword: me.password });
    expect(res.status).toBe(200);
    const mail = await smtp.mailTo(me.user.email);
    expect(mail.text).toContain(newEmail);
    expect(mail.text).not.toMatch(/token=|code/i);
  });

  it('needs no password for other fields', async () => {
    const me = await createUser();
    const res = await api()
      .patch('/api/users/me')
      .set('Authorization', me.auth)
      .send({ city: 'Lyon', email: me.user.email });
    expect(res.status).toBe(200);
    expect(res.body.data.city).toBe('Lyon');
  });

  it('needs a token', async () => {
    expect((await api().patch('/api/users/me').send({ firstName: 'x' })).status).toBe(401);
  });
});

describe('PATCH /users/me/password', () => {
  it('changes the password when the current one is right', async () => {
    const me = await createUser();
    const res = await api()
      .patch('/api/users/me/password')
      .set('Authorization', me.auth)
      .send({ currentPassword: me.password, newPassword: 'changed-pw' });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect((await api().post('/api/auth/login').send({ email: me.user.email, password: 'changed-pw' })).status).toBe(
      200,
    );
    expect(
      await prisma.activityLog.count({ where: { userId: me.user.id, action: 'password_change', success: true } }),
    ).toBe(1);
  });

  it('refuses a wrong current password with 400 "Current password is incorrect"', async () => {
    const me = await createUser();
    const res = await api()
      .patch('/api/users/me/password')
      .set('Authorization', me.auth)
      .send({ currentPassword: 'not-it', newPassword: 'changed-pw' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'Current password is incorrect', code: 'WRONG_PASSWORD' });
    expect((await api().post('/api/auth/login').send({ email: me.user.email, password: me.password })).status).toBe(
      200,
    );
  });

  it.each([
    ['a short new password', { currentPassword: 'secret123', newPassword: '123' }, 'newPassword'],
    ['no current password', { newPassword: 'longenough' }, 'currentPassword'],
  ])('refuses %s with 400 "Validation failed"', async (_n, body, field) => {
    const me = await createUser();
    const res = await api().patch('/api/users/me/password').set('Authorization', me.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('GET /users/:username', () => {
  it('shows the public profile without e-mail, verification, admin or lock data, stats without pending', async () => {
    const viewer = await createUser();
    const target = await createUser({
      firstName: 'Pub',
      lastName: 'Lic',
      city: 'Oslo',
      country: 'Norway',
      registryId: '12345',
      isAdmin: true,
    });
    await prisma.user.update({
      where: { id: target.user.id },
      data: { instagramUrl: 'https://instagram.com/pub', failedLoginAttempts: 2 },
    });
    await match(target, viewer, 'pending');
    await rate(viewer, target, 5);
    const res = await api().get(`/api/users/${target.user.username}`).set('Authorization', viewer.auth);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(
      [
        'avatar',
        'city',
        'country',
        'createdAt',
        'facebookUrl',
        'firstName',
        'id',
        'instagramUrl',
        'lastName',
        'registryId',
        'stats',
        'tiktokUrl',
        'username',
        'youtubeUrl',
      ].sort(),
    );
    expect(res.body.data).toMatchObject({
      username: target.user.username,
      firstName: 'Pub',
      city: 'Oslo',
      registryId: '12345',
      instagramUrl: 'https://instagram.com/pub',
    });
    expect(res.body.data.stats).toEqual({
      matches: { total: 2, accepted: 1, completed: 0 },
      ratings: { received: 1, given: 0, average: 5 },
      recordings: { done: 0, received: 0 },
    });
  });

  it('answers 404 "User not found" for an unknown username and 401 without a token', async () => {
    const viewer = await createUser();
    const res = await api()
      .get(`/api/users/${unique('ghost_')}`)
      .set('Authorization', viewer.auth);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: 'User not found', code: 'USER_NOT_FOUND' });
    expect((await api().get(`/api/users/${viewer.user.username}`)).status).toBe(401);
  });
});

describe('GET /users/:username/ratings', () => {
  it('answers averageScore, totalRatings and the newest 50 ratings with rater and event', async () => {
    const viewer = await createUser();
    const target = await createUser();
    const rater = await createUser();
    const base = Date.now() - 1000 * 60 * 60;
    const scores: number[] = [];
    for (let i = 0; i < 52; i++) {
      const score = (i % 5) + 1;
      scores.push(score);
      await rate(rater, target, score, { createdAt: new Date(base + i * 1000), comment: `c${i}` });
    }
    const res = await api().get(`/api/users/${target.user.username}/ratings`).set('Authorization', viewer.auth);
    expect(res.status).toBe(200);
    const { averageScore, totalRatings, ratings } = res.body.data;
    expect(totalRatings).toBe(52);
    expect(averageScore).toBe(Math.round((scores.reduce((a, b) => a + b, 0) / 52) * 100) / 100);
    expect(ratings).toHaveLength(50);
    expect(ratings[0].comment).toBe('c51');
    expect(ratings[49].comment).toBe('c2');
    expect(Object.keys(ratings[0]).sort()).toEqual([
      'comment',
      'createdAt',
      'event',
      'id',
      'rater',
      'score',
      'wouldCollaborateAgain',
    ]);
    expect(ratings[0].rater).toEqual({ id: rater.user.id, username: rater.user.username, avatar: rater.user.avatar });
    expect(Object.keys(ratings[0].event).sort()).toEqual(['id', 'name', 'slug']);
  });

  it('answers an empty list with a null average, and 404 for an unknown user', async () => {
    const viewer = await createUser();
    const res = await api().get(`/api/users/${viewer.user.username}/ratings`).set('Authorization', viewer.auth);
    expect(res.body.data).toEqual({ averageScore: null, totalRatings: 0, ratings: [] });
    const missing = await api()
      .get(`/api/users/${unique('ghost_')}/ratings`)
      .set('Authorization', viewer.auth);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('User not found');
  });
});

describe('no secrets in any response', () => {
  it('never returns passwordHash, token/code hashes, lock data or a bcrypt-looking string', async () => {
    const username = unique('leak_');
    const email = `${username}@example.test`;
    const bodies: unknown[] = [];
    const reg = await api().post('/api/auth/register').send({ username, email, password: 'secret123' });
    bodies.push(reg.body);
    const auth = `Bearer ${reg.body.data.token}`;
    await smtp.mailTo(email);
    const other = await createUser();
    await rate(other, { user: reg.body.data.user } as TestUser, 4);
    bodies.push((await api().post('/api/auth/login').send({ email, password: 'secret123' })).body);
    bodies.push((await api().post('/api/auth/login').send({ email, password: 'wrong' })).body);
    bodies.push((await api().get('/api/users/me').set('Authorization', auth)).body);
    bodies.push((await api().patch('/api/users/me').set('Authorization', auth).send({ city: 'Rome' })).body);
    const changed = await api()
      .patch('/api/users/me')
      .set('Authorization', auth)
      .send({ email: `${username}.2@example.test` });
    bodies.push(changed.body);
    bodies.push(
      (
        await api()
          .patch('/api/users/me/password')
          .set('Authorization', auth)
          .send({ currentPassword: 'secret123', newPassword: 'secret456' })
      ).body,
    );
    bodies.push((await api().get(`/api/users/${username}`).set('Authorization', other.auth)).body);
    bodies.push((await api().get(`/api/users/${other.user.username}/ratings`).set('Authorization', auth)).body);
    bodies.push((await api().get(`/api/users/${username}/ratings`).set('Authorization', other.auth)).body);
    bodies.push(
      (
        await api()
          .post('/api/auth/resend-verification')
          .send({ email: `${username}.2@example.test` })
      ).body,
    );
    bodies.push(
      (
        await api()
          .post('/api/auth/request-password-reset')
          .send({ email: `${username}.2@example.test` })
      ).body,
    );
    for (const body of bodies) {
      const text = JSON.stringify(body);
      expect(text).not.toMatch(/\$2[aby]\$/);
      for (const key of [
        'passwordHash',
        'verificationTokenHash',
        'verificationCodeHash',
        'resetTokenHash',
        'failedLoginAttempts',
        'lockedUntil',
        'verificationAttempts',
      ]) {
        expect(text).not.toContain(key);
      }
    }
  });
});
