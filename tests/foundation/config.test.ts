import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/config/config-error';
import { childEnv, runTs } from '../helpers/process';

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.lockout).toEqual({ maxAttempts: 5, minutes: 15 });
    expect(c.rateLimit.general.max).toBe(300);
    expect(c.rateLimit.auth).toEqual({ max: 20, windowMs: 15 * 60 * 1000 });
    expect(c.rateLimit.email).toEqual({ max: 5, windowMs: 60 * 60 * 1000 });
    expect(c.jwt.expiresInSeconds).toBe(24 * 60 * 60);
    expect(c.readCache.maxBytes).toBe(64 * 1024 * 1024);
    expect(c.databasePool).toMatchObject({ size: 10, min: 0, idleMs: 10_000 });
    expect(c.warmUp.ms).toBe(0);
    expect(c.v8TurbofanCalls).toBe(1000);
    expect(c.v8Pretenuring).toBe(false);
  });

  it('reads READ_CACHE_MAX_MB into the read cache bound, in bytes', () => {
    expect(loadConfig({ READ_CACHE_MAX_MB: '512' }).readCache.maxBytes).toBe(512 * 1024 * 1024);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ LOCKOUT_MAX_ATTEMPTS: '0' }, 'LOCKOUT_MAX_ATTEMPTS'],
    [{ CSRF_ENABLED: 'maybe' }, 'CSRF_ENABLED'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ READ_CACHE_MAX_MB: '0' }, 'READ_CACHE_MAX_MB'],
    [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
    [{ DATABASE_POOL_MIN: '11' }, 'DATABASE_POOL_MIN: must not exceed DATABASE_POOL_SIZE \\(10\\)'],
    [{ DATABASE_POOL_IDLE_MS: '-1' }, 'DATABASE_POOL_IDLE_MS'],
    [{ WARMUP_MS: '60001' }, 'WARMUP_MS'],
    [{ V8_TURBOFAN_CALLS: '-1' }, 'V8_TURBOFAN_CALLS'],
    [{ V8_PRETENURING: 'sometimes' }, 'V8_PRETENURING'],
    [{ NODE_ENV: 'production', JWT_SECRET: 'short' }, 'JWT_SECRET'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(variable));
  });

  it('accepts a production configuration with a long JWT secret (and SMTP, tests/security/config.test.ts)', () => {
    const c = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SMTP_HOST: 'smtp.example.com' });
    expect(c.isProduction).toBe(true);
  });

  it('stops the real server start with a clear message on a bad PORT', async () => {
    const result = await runTs('src/server.ts', [], childEnv({ PORT: 'not-a-port' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT: must be a whole number from 0 to 65535');
    expect(result.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  });

  it('stops the real server start in production with a too-short JWT_SECRET', async () => {
    const result = await runTs('src/server.ts', [], childEnv({ NODE_ENV: 'production', JWT_SECRET: 'too-short' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('JWT_SECRET');
  });
});
