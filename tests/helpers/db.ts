import { testConfig } from './container';
import { Database } from '../../src/lib/prisma';
import { createLogger } from '../../src/lib/logger';

/**
 * A Prisma client of the tests themselves, for arranging and asserting rows, independent of
 * the containers under test (closed by tests/setup/after-env.ts).
 */
export const testDatabase = new Database(testConfig().databaseUrl as string, 'postgres', createLogger('silent'));
export const prisma = testDatabase.prisma;
