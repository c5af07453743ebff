import { prettyTransport } from '../../src/lib/logger';

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
