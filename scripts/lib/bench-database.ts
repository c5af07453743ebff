import { Client } from 'pg';

/**
 * A fresh, uniquely named database for one benchmark run on the PostgreSQL server at
 * TEST_DATABASE_ADMIN_URL (default: the local server on 5432), dropped afterwards.
 */
export function benchDatabase(prefix: string) {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const name = `${prefix}_${Date.now()}_${process.pid}`;
  const url = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    name,
    url,
    create: () => admin(`CREATE DATABASE "${name}"`),
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/**
 * The environment an in-process bench loads its configuration from (`loadConfig(process.env)`):
 * the bench's database, a development service with rate limits, CSRF and the matching scheduler
 * off, silent logs (`BENCH_LOG_LEVEL` to see them) and a fixed JWT secret.
 */
export function benchEnvironment(databaseUrl: string): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'development',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    RATE_LIMIT_ENABLED: 'false',
    CSRF_ENABLED: 'false',
    MATCHING_SCHEDULER_ENABLED: 'false',
    JWT_SECRET: 'bench-secret-that-is-at-least-32-characters-long',
  };
}
