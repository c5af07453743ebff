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
