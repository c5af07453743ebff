import { Test } from 'supertest';
import { seedReferenceData } from '../../src/lib/seed';
import { closeTestContainer } from '../helpers/container';
import { checkResponse, pendingSocketProblems, writeStats } from '../helpers/contract';
import { prisma, testDatabase } from '../helpers/db';

// Every test file gets a shared container (tests/helpers/container.ts); reference data through
// the service's own idempotent seeding (safe in every file).
beforeAll(async () => {
  await seedReferenceData(prisma);
});

// Release the pool so Jest can finish each file without open handles.
afterAll(async () => {
  await closeTestContainer();
  await testDatabase.close();
});

// Contract check (tests/helpers/contract.ts): every response received through supertest is
// validated against the OpenAPI document; a mismatch fails the request's promise or callback,
// so the test that received it fails.
type AssertFn = (this: Test, resError: unknown, res: unknown, fn?: (err: unknown, res: unknown) => void) => void;
const proto = Test.prototype as unknown as { assert: AssertFn; method: string; url: string };
const originalAssert = proto.assert;
proto.assert = function contractAssert(this: Test, resError, res, fn) {
  const request = this as unknown as { method: string; url: string };
  originalAssert.call(this, resError, res, (err: unknown, received: unknown) => {
    const r = received as { status?: number; headers?: Record<string, string>; body?: unknown } | undefined;
    if (r && typeof r.status === 'number') {
      const problem = checkResponse({
        method: request.method,
        url: request.url,
        status: r.status,
        contentType: r.headers?.['content-type'],
        body: r.body,
      });
      if (problem && !err) err = new Error(`OpenAPI contract: ${problem}`);
    }
    fn?.call(this, err, received);
  });
};

afterEach(() => {
  if (pendingSocketProblems.length === 0) return;
  const problems = pendingSocketProblems.splice(0);
  throw new Error(`Socket.IO contract:\n${problems.join('\n')}`);
});

afterAll(() => {
  writeStats(expect.getState().testPath ?? 'unknown');
});
