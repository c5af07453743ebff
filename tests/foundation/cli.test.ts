import { prisma } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { childEnv, runTs } from '../helpers/process';

// Each test starts a CLI process (tsx compiles on the way): generous on a loaded machine.
jest.setTimeout(120000);

describe('command line', () => {
  it('event:create prints the new slug alone on the last line', async () => {
    const result = await runTs(
      'src/cli.ts',
      [
        'event:create',
        '--name',
        'Swing Camp',
        '--location',
        'Kraków, Poland',
        '--start',
        '2027-03-01T10:00:00Z',
        '--end',
        '2027-03-03T18:00:00Z',
        '--registry-id',
        '555',
      ],
      childEnv(),
    );
    expect(result.code).toBe(0);
    const slug = result.stdout.trim().split('\n').pop()!;
    expect(slug).toMatch(/^[A-Za-z0-9]{12,50}$/);
    const event = await prisma.event.findUnique({ where: { slug } });
    expect(event).toMatchObject({ name: 'Swing Camp', location: 'Kraków, Poland', worldRegistryId: '555' });
  });

  it('event:create refuses a missing name with exit 1', async () => {
    const result = await runTs(
      'src/cli.ts',
      ['event:create', '--location', 'X', '--start', '2027-01-01', '--end', '2027-01-02'],
      childEnv(),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--name is required');
  });

  it('user:promote makes a user an admin', async () => {
    const { user } = await createUser();
    const result = await runTs('src/cli.ts', ['user:promote', user.email.toUpperCase()], childEnv());
    expect(result.code).toBe(0);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).isAdmin).toBe(true);
  });

  it('prints the usage for an unknown command', async () => {
    const result = await runTs('src/cli.ts', ['nope'], childEnv());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Usage: npm run cli');
  });
});
