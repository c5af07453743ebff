import { prettyTransport } from '../../src/lib/logger';
import { runTs } from '../helpers/process';

describe('prettyTransport', () => {
  it('uses pino-pretty in development when stdout is a terminal', () => {
    expect(prettyTransport('development', true)).toMatchObject({ target: 'pino-pretty' });
  });

  it('keeps JSON in development when stdout is a pipe or a file', () => {
    expect(prettyTransport('development', false)).toBeUndefined();
  });

  it.each(['production', 'test'] as const)('keeps JSON in %s even on a terminal', (env) => {
    expect(prettyTransport(env, true)).toBeUndefined();
    expect(prettyTransport(env, false)).toBeUndefined();
  });

  it('names a transport the service can load at run time (pino-pretty is a dependency)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json read as the service reads it
    const pkg = require('../../package.json') as { dependencies: Record<string, string> };
    expect(pkg.dependencies['pino-pretty']).toBeDefined();
    expect(() => require.resolve('pino-pretty')).not.toThrow();
  });
});

describe("the server's log lines", () => {
  it('are all written, as UTF-8 JSON lines, when the process exits right after logging them', async () => {
    const count = 20_000;
    const { code, stdout } = await runTs('tests/fixtures/log-lines.ts', [String(count)], { PATH: process.env.PATH });
    expect(code).toBe(0);
    const lines = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { i: number; name: string; msg: string });
    expect(lines).toHaveLength(count);
    expect(lines.map((line) => line.i)).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(lines[count - 1]).toMatchObject({ name: 'Zoë Ünal ✓ 舞', msg: `line ${count - 1}` });
  }, 60_000);
});
