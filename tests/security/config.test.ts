import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/config/config-error';
import { TokenAuthenticator } from '../../src/lib/auth';
import { testDatabase } from '../helpers/db';

/** Settings that made a deployment unsafe are refused or replaced (docs/security.md). */
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wcs-config-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const refuses = (env: NodeJS.ProcessEnv, variable: string) => {
  expect(() => loadConfig(env)).toThrow(ConfigError);
  expect(() => loadConfig(env)).toThrow(new RegExp(`^\\s+${variable}: `, 'm'));
};

describe('TRUST_PROXY', () => {
  it.each(['true', 'TRUE', 'yes', 'on'])(
    'refuses %s naming TRUST_PROXY (any client could choose its address)',
    (value) => {
      refuses({ JWT_SECRET: 'x'.repeat(32), TRUST_PROXY: value }, 'TRUST_PROXY');
    },
  );

  it.each([
    ['1', 1],
    ['2', 2],
    ['0', false],
    ['false', false],
    ['', false],
    ['10.0.0.0/8, loopback', ['10.0.0.0/8', 'loopback']],
    ['192.168.1.10,::1,fd00::/16,uniquelocal', ['192.168.1.10', '::1', 'fd00::/16', 'uniquelocal']],
  ])('accepts %j as %j', (value, expected) => {
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(32), TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['proxy', '10.0.0.0/33', '10.0.0.1/8/2', '1.2.3', '101', '10.0.0.0/8,'])(
    'refuses %j naming TRUST_PROXY',
    (value) => {
      refuses({ JWT_SECRET: 'x'.repeat(32), TRUST_PROXY: value }, 'TRUST_PROXY');
    },
  );

  it('is unset by default (the connection address counts)', () => {
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(32) }).trustProxy).toBe(false);
  });
});

describe('JWT_SECRET unset outside production', () => {
  const FORMER_CONSTANT = 'development-only-jwt-secret-do-not-use-in-production';

  it('generates a random secret once and keeps it in DATA_DIR/jwt-secret with mode 600', () => {
    const dir = tempDir();
    const first = loadConfig({ DATA_DIR: dir });
    const file = path.join(dir, 'jwt-secret');
    expect(first.jwt.secretFile).toBe(file);
    expect(first.jwt.secret.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.jwt.secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadConfig({ DATA_DIR: dir }).jwt.secret).toBe(first.jwt.secret);
  });

  it('gives every data directory its own secret, never a constant of the source', () => {
    const a = loadConfig({ DATA_DIR: tempDir() }).jwt.secret;
    const b = loadConfig({ DATA_DIR: path.join(tempDir(), 'nested', 'data') }).jwt.secret;
    expect(a).not.toBe(b);
    expect([a, b]).not.toContain(FORMER_CONSTANT);
  });

  it('refuses an admin token signed with the former development constant', () => {
    const config = loadConfig({ DATA_DIR: tempDir() });
    const tokens = new TokenAuthenticator(testDatabase.sql, config.jwt);
    const forged = jwt.sign({}, FORMER_CONSTANT, { algorithm: 'HS256', subject: '1', expiresIn: 60 });
    expect(() => tokens.verify(forged)).toThrow('Invalid or expired token');
    expect(tokens.verify(tokens.sign({ id: 1 })).userId).toBe(1);
  });

  it('uses JWT_SECRET when given and writes no file', () => {
    const dir = tempDir();
    const c = loadConfig({ DATA_DIR: dir, JWT_SECRET: 'y'.repeat(32) });
    expect(c.jwt).toMatchObject({ secret: 'y'.repeat(32), secretFile: undefined });
    expect(() => statSync(path.join(dir, 'jwt-secret'))).toThrow();
  });

  it('refuses a secret file that holds no usable secret, naming DATA_DIR', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'jwt-secret'), 'short\n', { mode: 0o600 });
    refuses({ DATA_DIR: dir }, 'DATA_DIR');
  });

  it('generates nothing in production: JWT_SECRET is required there', () => {
    const dir = tempDir();
    refuses({ NODE_ENV: 'production', DATA_DIR: dir, SMTP_HOST: 'smtp.example.com' }, 'JWT_SECRET');
    expect(() => statSync(path.join(dir, 'jwt-secret'))).toThrow();
  });
});

describe('SMTP_HOST in production', () => {
  it('refuses to start without it (mails with reset tokens would go to the log)', () => {
    refuses({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }, 'SMTP_HOST');
  });

  it('accepts production with SMTP_HOST', () => {
    expect(
      loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SMTP_HOST: 'smtp.example.com' }).smtp?.host,
    ).toBe('smtp.example.com');
  });

  it('still logs mails outside production without SMTP_HOST', () => {
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(32) }).smtp).toBeUndefined();
  });
});
