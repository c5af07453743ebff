import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { optimiseAfterCalls, pretenureAllocationSites } from '../../src/lib/v8-tiering';
import { freePort, ROOT } from '../helpers/process';
import { spawnServer } from '../helpers/server-process';

/**
 * V8_TURBOFAN_CALLS (docs/operations.md "Runtimes"): the service sets V8's TurboFan call count at
 * its start on a V8 that has the setting (Node 22 and 24) and leaves Node 20's V8 alone. CI runs
 * this file on Node 20 and on Node 24, so each branch runs on a real runtime.
 */
const v8Major = Number(process.versions.v8.split('.')[0]);
const hasCount = v8Major >= 12;

/** A start against a database that does not answer: the setting comes first, the exit soon after. */
async function startOutput(env: NodeJS.ProcessEnv): Promise<string> {
  const server = await spawnServer({
    DATABASE_URL: `postgresql://wcs@127.0.0.1:${await freePort()}/wcs_down`,
    DATABASE_STARTUP_TIMEOUT_SECONDS: '0',
    ...env,
  });
  await server.exited;
  return server.output();
}

/** The start with the default settings, run once for both settings' tests. */
let defaultStart: Promise<string> | undefined;
const defaultStartOutput = () => (defaultStart ??= startOutput({}));

describe('V8 TurboFan call count', () => {
  it('is not set for 0 (V8 keeps its own count)', () => {
    expect(optimiseAfterCalls(0)).toBe(false);
  });

  it("is not set on Node 20's V8 (11.3), which has no such setting", () => {
    expect(optimiseAfterCalls(1000, '11.3.244.8-node.33')).toBe(false);
  });

  it(`is set by the service at its start (${hasCount ? 'this V8 has the setting' : 'not on this V8'}), and V8 accepts it`, async () => {
    const output = await defaultStartOutput();
    if (hasCount) expect(output).toContain('V8 optimises a function after 1000 calls');
    else expect(output).not.toContain('V8 optimises');
    // V8 prints this for a setting it does not know, and goes on without it
    expect(output).not.toContain('unrecognized flag');
  }, 60_000);

  it('is left to V8 with V8_TURBOFAN_CALLS=0', async () => {
    const output = await startOutput({ V8_TURBOFAN_CALLS: '0' });
    expect(output).not.toContain('V8 optimises');
    expect(output).toContain('is not reachable');
  }, 60_000);
});

/**
 * V8_PRETENURING (docs/operations.md "Runtimes"): the service turns V8's allocation-site
 * pretenuring off at its start unless told otherwise, on every supported runtime.
 */
describe('V8 allocation-site pretenuring', () => {
  it('is left on with V8_PRETENURING=true (nothing is set)', () => {
    expect(pretenureAllocationSites(true)).toBe(false);
  });

  it('is turned off by the service at its start, and V8 accepts the setting', async () => {
    const output = await defaultStartOutput();
    expect(output).toContain('V8 allocation-site pretenuring is off');
    expect(output).not.toContain('unrecognized flag');
  }, 60_000);

  /** The old generation's growth (MB) over 200 messages to 2 000 connections of tests/fixtures/write-buffers.ts. */
  async function oldGrowthMb(pretenuring: 'on' | 'off'): Promise<number> {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--initial-old-space-size=512',
        '--max-semi-space-size=1',
        '--import',
        'tsx',
        path.join('tests', 'fixtures', 'write-buffers.ts'),
        pretenuring,
      ],
      { cwd: ROOT },
    );
    return Number(stdout.trim());
  }

  it("turned off, keeps a connection's replaced write buffers from dragging their packets into the old generation", async () => {
    // ~400 000 writes: with V8's pretenuring every dead buffer is born old and keeps its young
    // packet alive through young collections (measured 61-191 MB here, 35.8 MB once on a busy CI
    // machine); without, a few MB (4.6-4.7 MB). The second figure is the control: it shows the
    // fixture still reproduces the growth, so the first one means something.
    const off = await oldGrowthMb('off');
    const on = await oldGrowthMb('on');
    expect(off).toBeLessThan(20);
    expect(on).toBeGreaterThan(Math.max(20, 4 * off));
  }, 60_000);

  it('is left to V8 with V8_PRETENURING=true', async () => {
    const output = await startOutput({ V8_PRETENURING: 'true' });
    expect(output).not.toContain('pretenuring is off');
    expect(output).toContain('is not reachable');
  }, 60_000);
});
