import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/config/config-error';
import { spawnServer } from '../helpers/server-process';

/**
 * Start-up settings (docs/security-hardening.md): unsafe values are refused before listening,
 * with `Cannot start: Invalid configuration:` and the variable named, never a stack trace.
 */
const SECRET = 'x'.repeat(32);
const refuses = (env: NodeJS.ProcessEnv, variable: string) => {
  expect(() => loadConfig(env)).toThrow(ConfigError);
  expect(() => loadConfig(env)).toThrow(new RegExp(`^\\s+${variable}: `, 'm'));
};

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wcs-startup-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('TRUST_PROXY', () => {
  it.each(['11', '100', '1000'])('refuses a hop count of %s (0 to 10 only)', (value) => {
    refuses({ JWT_SECRET: SECRET, TRUST_PROXY: value }, 'TRUST_PROXY');
  });

  it('accepts a hop count of 10', () => {
    expect(loadConfig({ JWT_SECRET: SECRET, TRUST_PROXY: '10' }).trustProxy).toBe(10);
  });

  it.each([
    '0.0.0.0/0',
    '::/0',
    '0.0.0.0/1,128.0.0.0/1',
    '10.0.0.0/7',
    'fd00::/15',
    '::ffff:10.0.0.0/103',
    '::ffff:0.0.0.0/96',
  ])('refuses the range %s, wider than /8 (IPv4) or /16 (IPv6)', (value) => {
    refuses({ JWT_SECRET: SECRET, TRUST_PROXY: value }, 'TRUST_PROXY');
  });

  it.each(['10.0.0.0/8', 'fd00::/16', '::ffff:10.0.0.0/104', '192.168.0.0/16,loopback'])(
    'accepts the range %s',
    (value) => {
      expect(loadConfig({ JWT_SECRET: SECRET, TRUST_PROXY: value }).trustProxy).toEqual(value.split(','));
    },
  );

  it('refuses 0.0.0.0/0 at start: exit code 1 before listening, the variable named, no stack trace', async () => {
    const server = await spawnServer({ TRUST_PROXY: '0.0.0.0/0', JWT_SECRET: SECRET });
    expect(await server.exited).toEqual({ code: 1, signal: null });
    const stderr = server.stderr();
    expect(stderr).toMatch(/^Cannot start: Invalid configuration:\n {2}TRUST_PROXY: /m);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(server.output()).not.toMatch(/listening on/);
  }, 60_000);
});

describe('TURN settings', () => {
  it('refuses a TURN_SECRET shorter than 32 characters', () => {
    refuses(
      { JWT_SECRET: SECRET, TURN_URLS: 'turn:turn.example.test:3478', TURN_SECRET: 'y'.repeat(31) },
      'TURN_SECRET',
    );
  });

  it('accepts a TURN_SECRET of 32 characters', () => {
    expect(
      loadConfig({ JWT_SECRET: SECRET, TURN_URLS: 'turn:turn.example.test:3478', TURN_SECRET: 'y'.repeat(32) }).webrtc
        .turnSecret,
    ).toBe('y'.repeat(32));
  });

  it('caps TURN_TTL_SECONDS at 86400', () => {
    refuses({ JWT_SECRET: SECRET, TURN_TTL_SECONDS: '86401' }, 'TURN_TTL_SECONDS');
    expect(loadConfig({ JWT_SECRET: SECRET, TURN_TTL_SECONDS: '86400' }).webrtc.turnTtlSeconds).toBe(86400);
  });
});

describe('METRICS_TOKEN', () => {
  it('refuses a token shorter than 32 characters', () => {
    refuses({ JWT_SECRET: SECRET, METRICS_TOKEN: 'm'.repeat(31) }, 'METRICS_TOKEN');
  });
});

describe('the generated JWT secret file (DATA_DIR/jwt-secret)', () => {
  const secretFile = (mode: number) => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'jwt-secret'), `${'s'.repeat(48)}\n`);
    chmodSync(path.join(dir, 'jwt-secret'), mode); // past the umask
    return { dir, file: path.join(dir, 'jwt-secret') };
  };

  it.each(['644', '640', '604', '606', '660', '620'])(
    'refuses a file of mode %s (readable or writable by other users), naming DATA_DIR',
    (mode) => {
      const { dir } = secretFile(parseInt(mode, 8));
      refuses({ DATA_DIR: dir }, 'DATA_DIR');
      expect(() => loadConfig({ DATA_DIR: dir })).toThrow(/readable or writable by other users/);
    },
  );

  it('refuses a file another user owns', () => {
    if (process.getuid?.() !== 0) return expect(process.getuid?.()).not.toBe(0); // only root can give a file away
    const { dir, file } = secretFile(0o600);
    chownSync(file, 65534, 65534);
    refuses({ DATA_DIR: dir }, 'DATA_DIR');
    expect(() => loadConfig({ DATA_DIR: dir })).toThrow(/owned by another user/);
  });

  it('accepts a private file of our own (mode 600)', () => {
    const { dir } = secretFile(0o600);
    expect(loadConfig({ DATA_DIR: dir }).jwt.secret).toBe('s'.repeat(48));
  });
});
