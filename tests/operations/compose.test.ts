import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ConfigError } from '../../src/config/config-error';
import { loadConfig } from '../../src/config/index';

/**
 * docker-compose.yml and the Dockerfile cannot be run on our machines, so they are checked
 * as data: the services, their ports and health checks, and that the api container gets
 * every variable the service needs in production.
 */
interface Service {
  image?: string;
  build?: unknown;
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}
const root = path.join(__dirname, '..', '..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
};
const { api, db, redis, mailpit } = compose.services;

/** Compose's interpolation: `${X:?msg}` must come from the operator, `${X:-d}` defaults to d. */
function interpolate(value: string, operator: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_m, name: string, kind?: string, rest?: string) => {
    if (operator[name] !== undefined) return operator[name];
    if (kind === '-') return rest ?? '';
    if (kind === '?') throw new Error(`${name} must be set by the operator`);
    return '';
  });
}

/** Variables loadConfig() refuses production without, found by asking it until it accepts. */
function requiredByConfigInProduction(): string[] {
  const env: NodeJS.ProcessEnv = { NODE_ENV: 'production' };
  const named: string[] = [];
  for (;;) {
    try {
      loadConfig(env);
      return named;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      const variable = /^\s+(\w+):/m.exec(err.message)?.[1];
      if (!variable || named.includes(variable)) throw err;
      named.push(variable);
      env[variable] = 'x'.repeat(64);
    }
  }
}

describe('docker-compose.yml', () => {
  it('declares the api, PostgreSQL, Redis and Mailpit services', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['api', 'db', 'redis', 'mailpit']));
    expect(api.build).toBe('.');
    expect(mailpit.image).toMatch(/^axllent\/mailpit:/);
  });

  it('publishes the API on 3000 and the Mailpit web UI on 8025 of the loopback interface', () => {
    expect(api.ports).toContain('3000:3000');
    expect(mailpit.ports).toContain('127.0.0.1:8025:8025');
    expect(mailpit.ports).toContain('127.0.0.1:1025:1025');
  });

  it('gives PostgreSQL, Redis and Mailpit health checks the api waits for', () => {
    expect(db.healthcheck?.test.join(' ')).toContain('pg_isready');
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(mailpit.healthcheck?.test).toEqual(['CMD', '/mailpit', 'readyz']);
    expect(api.depends_on).toMatchObject({
      db: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      mailpit: { condition: 'service_healthy' },
    });
  });

  it('points the api at Mailpit for mail', () => {
    expect(api.environment).toMatchObject({ SMTP_HOST: 'mailpit', SMTP_PORT: '1025', SMTP_SECURE: 'false' });
  });

  it('gives the api every variable the service requires in production', () => {
    const env = api.environment ?? {};
    // What loadConfig() itself refuses production without (JWT_SECRET today) ...
    const fromConfig = requiredByConfigInProduction();
    expect(fromConfig).toContain('JWT_SECRET');
    // ... plus what production needs although the config has a fallback: PostgreSQL rather than
    // the embedded database, shared limits and rooms, real mail rather than mail in the log.
    for (const variable of [...fromConfig, 'DATABASE_URL', 'REDIS_URL', 'SMTP_HOST', 'FRONTEND_URL']) {
      expect({ variable, provided: env[variable] !== undefined }).toEqual({ variable, provided: true });
    }
    expect(env.NODE_ENV).toBe('production');
    // The secret comes from the operator: compose refuses to start without it.
    expect(env.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?/);
  });

  it('holds an api environment the configuration accepts in production', () => {
    const operator = {
      JWT_SECRET: 'an-operator-secret-of-at-least-32-characters',
      TURN_SECRET: 'an-operator-turn-secret-of-32-characters',
    };
    const env = Object.fromEntries(
      Object.entries(api.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), operator)]),
    );
    const config = loadConfig(env);
    expect(config.isProduction).toBe(true);
    expect(config.databaseUrl).toBe('postgresql://wcs:wcs@db:5432/wcs');
    expect(config.smtp).toMatchObject({ host: 'mailpit', port: 1025, secure: false });
    expect(config.metrics.token).toBeUndefined();
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');

  it('installs without dependency install scripts and generates the Prisma client itself', () => {
    expect(dockerfile).toMatch(/^RUN npm ci .*--ignore-scripts$/m);
    expect(dockerfile).toMatch(/^RUN npm run prisma:generate$/m);
  });

  it('runs the built server as an unprivileged user with a liveness check on the configured port', () => {
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*process\.env\.PORT.*\/api\/health\/live/m);
    // the built server, with Node flags before it (the heap sizes of `npm start`, tests/operations/image.test.ts)
    expect(dockerfile).toMatch(/^CMD \["node", (?:"--[a-z-]+=\d+", )*"dist\/server\.js"\]$/m);
  });
});
