/**
 * (b) of `npm run bench:http`: GET /api/events written by hand, the ceiling of the database on
 * this machine. Express 5, one `pg` pool (pg's default size, like the service's), jsonwebtoken
 * with a key object built once, two statements: the caller's row (a deleted user's token is
 * refused, like the service) and the events with their live participant count and the caller's
 * participation. The benchmark asserts that its JSON equals the service's answer (keys sorted).
 * Runs in its own process; PORT, DATABASE_URL and JWT_SECRET from the environment.
 */
import { createSecretKey } from 'node:crypto';
import express from 'express';
import jwt from 'jsonwebtoken';
import { Client, Pool } from 'pg';

let queries = 0;
class CountingClient extends Client {
  override query(...args: unknown[]): never {
    queries++;
    return (Client.prototype.query as (...a: unknown[]) => never).apply(this, args);
  }
}
const pool = new Pool({ connectionString: process.env.DATABASE_URL, Client: CountingClient });
const key = createSecretKey(Buffer.from(process.env.JWT_SECRET ?? '', 'utf8'));

const EVENTS_SQL = `
  SELECT e.id, e.slug, e.name, e.location, e."startDate", e."endDate", e."worldRegistryId",
         (SELECT count(*)::int FROM "EventParticipant" c WHERE c."eventId" = e.id) AS "participantsCount",
         e.description, e."createdAt", p."joinedAt"
  FROM "Event" e
  LEFT JOIN "EventParticipant" p ON p."eventId" = e.id AND p."userId" = $1
  ORDER BY (p.id IS NULL), e."startDate", e.id`;

const unauthorized = { success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' };

const app = express();
app.disable('x-powered-by');
app.get('/api/events', async (req, res) => {
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  let userId: number;
  try {
    const payload = jwt.verify(token ?? '', key, { algorithms: ['HS256'] });
    userId = Number(typeof payload === 'object' ? payload.sub : NaN);
    if (!Number.isSafeInteger(userId) || userId <= 0) throw new Error('sub');
  } catch {
    res.status(401).json(unauthorized);
    return;
  }
  const user = await pool.query(
    'SELECT id, username, email, avatar, "isAdmin", "emailVerified" FROM "User" WHERE id = $1',
    [userId],
  );
  if (user.rowCount === 0) {
    res.status(401).json(unauthorized);
    return;
  }
  const { rows } = await pool.query<{ joinedAt: Date | null }>(EVENTS_SQL, [userId]);
  const data = rows.map((r) => ({ ...r, isJoined: r.joinedAt !== null }));
  res.json({ success: true, count: data.length, data });
});
/** statements sent so far (the benchmark reads it before and after a batch) */
app.get('/__queries', (_req, res) => {
  res.json({ queries });
});
app.listen(Number(process.env.PORT), '127.0.0.1');
