import { prisma } from '../../src/lib/prisma';
import { seedReferenceData } from '../../src/lib/seed';

// Reference data through the service's own idempotent seeding (safe in every file).
beforeAll(async () => {
  await seedReferenceData(prisma);
});

// Release the pool so Jest can finish each file without open handles.
afterAll(async () => {
  await prisma.$disconnect();
});
