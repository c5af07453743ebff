import { seedReferenceData } from '../../src/lib/seed';
import { closeTestContainer } from '../helpers/container';
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
