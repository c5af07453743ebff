/**
 * `npm run bench:http:explain`: the plans of the hot reads on the benchmark's weekend.
 *
 * Creates a fresh database (TEST_DATABASE_ADMIN_URL), migrates it, seeds the weekend of
 * scripts/bench-http/seed.ts and runs matching, then calls each hot endpoint once through the
 * app in this process (the caller's first read: a miss of the read cache) while recording the
 * statements sent to PostgreSQL, and prints
 * `EXPLAIN (ANALYZE, BUFFERS)` of each with the values it was sent with. The output is kept in
 * scripts/bench-http/NOTES.md. Drops the database afterwards.
 */
import pg, { Client } from 'pg';
import supertest from 'supertest';
import jwt from 'jsonwebtoken';
import { systemActor } from '../../src/lib/actor.js';
import { hotReadPaths, seedWeekend } from './seed.js';
import { benchDatabase } from '../lib/bench-database.js';

const database = benchDatabase('wcs_bench_explain');
const dbUrl = database.url;
const JWT_SECRET = 'bench-http-secret-that-is-at-least-32-characters';

interface Sent {
  text: string;
  values: unknown[];
}
let recording: Sent[] | undefined;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
  this: unknown,
  ...args: unknown[]
) {
  const [first, second] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
  if (recording)
    recording.push(
      typeof first === 'string'
        ? { text: first, values: second ?? [] }
        : { text: first.text, values: first.values ?? [] },
    );
  return query.apply(this, args);
};

async function main(): Promise<void> {
  // production requires an SMTP host; nothing here sends mail
  const env = {
    ...process.env,
    DATABASE_URL: dbUrl,
    JWT_SECRET,
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    REDIS_URL: '',
    SMTP_HOST: '127.0.0.1',
  };
  const { loadConfig } = await import('../../src/config/index.js');
  const { createContainer } = await import('../../src/container.js');
  const { buildApp } = await import('../../src/app.js');
  const container = createContainer(loadConfig(env));
  await database.create();
  try {
    await container.database.prepare();
    const db = new Client({ connectionString: dbUrl });
    await db.connect();
    const weekend = await seedWeekend(db);
    await container.matching.runNow(systemActor('cli'), { slug: weekend.bigEventSlug });
    await db.query('ANALYZE');
    const app = buildApp(container);
    const token = jwt.sign({ ev: true }, JWT_SECRET, {
      algorithm: 'HS256',
      subject: String(weekend.callerIds[0]),
      expiresIn: 600,
    });
    const slug = weekend.bigEventSlug;
    const paths = hotReadPaths(slug);
    console.log(
      `EXPLAIN (ANALYZE, BUFFERS) of every statement of the hot reads (PostgreSQL ${(await db.query('SHOW server_version')).rows[0].server_version}, ${new Date().toISOString().slice(0, 10)})`,
    );
    for (const path of paths) {
      // the caller's first read of the path: a read-cache miss, whose statements are the ones that cost
      recording = [];
      const res = await supertest(app).get(path).set('authorization', `Bearer ${token}`);
      const sent = recording;
      recording = undefined;
      console.log(`\n### GET ${path.replace(slug, ':slug')} (${res.status}, ${sent.length} statements)`);
      for (const s of sent) {
        // the read cache's own set-up (LISTEN) travels on the recorded connections too: only queries have plans
        if (!/^\s*(SELECT|WITH)\b/i.test(s.text)) {
          console.log(`\n${s.text.replace(/\s+/g, ' ').trim()}\n   (not a query: no plan)`);
          continue;
        }
        const plan = await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${s.text}`, s.values);
        console.log(`\n${s.text.replace(/\s+/g, ' ').trim()}\n-- values ${JSON.stringify(s.values)}`);
        for (const row of plan.rows) console.log(`   ${row['QUERY PLAN']}`);
        const lines = plan.rows.map((r) => String(r['QUERY PLAN']));
        if (lines.some((l) => l.includes('Seq Scan'))) {
          // Small tables are read whole; show the index each predicate would use on a larger weekend.
          await db.query('BEGIN');
          await db.query('SET LOCAL enable_seqscan = off');
          const indexed = await db.query(`EXPLAIN (COSTS OFF) ${s.text}`, s.values);
          await db.query('COMMIT');
          console.log('   -- with enable_seqscan = off (the scans only):');
          for (const row of indexed.rows)
            if (/Scan/.test(String(row['QUERY PLAN']))) console.log(`   ${row['QUERY PLAN']}`);
        }
        if (s.values.length > 0) await printGenericPlan(db, s);
      }
    }
    await db.end();
  } finally {
    await container.close();
    await database.drop();
  }
}

/** A value as an SQL literal for EXECUTE (the recorded values: numbers, text, null, arrays of ids). */
function literal(db: Client, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return db.escapeLiteral(`{${value.join(',')}}`);
  return db.escapeLiteral(String(value));
}

/**
 * The plan PostgreSQL keeps for a prepared statement after its fifth execution on a connection
 * (the generic plan, for any values), which is what the hot reads run on: its scans only. The
 * per-caller statements in their batched form (`unnest($n::int[])`) must still reach each
 * caller's rows by index there, not read whole tables for a guessed number of callers.
 */
async function printGenericPlan(db: Client, s: Sent): Promise<void> {
  await db.query('BEGIN');
  try {
    await db.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await db.query(`PREPARE generic_plan AS ${s.text}`);
    const args = s.values.map((v) => literal(db, v)).join(', ');
    const plan = await db.query(`EXPLAIN (COSTS OFF) EXECUTE generic_plan(${args})`);
    console.log('   -- generic plan (after the fifth execution on a connection), the scans only:');
    for (const row of plan.rows)
      if (/Scan|Loop|Join/.test(String(row['QUERY PLAN']))) console.log(`   ${row['QUERY PLAN']}`);
  } finally {
    await db.query('ROLLBACK');
    await db.query('DEALLOCATE ALL');
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
