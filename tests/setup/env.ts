import { readState } from './test-db';

/**
 * Runs before every test file: points the service at the run's database and sets the
 * test configuration. A test that needs other settings changes process.env and loads the
 * modules inside jest.isolateModules (see tests/foundation/config.test.ts).
 */
const file = process.env.WCS_TEST_STATE_FILE;
if (!file) throw new Error('WCS_TEST_STATE_FILE is not set: run the tests through jest (globalSetup)');
process.env.DATABASE_URL = readState(file).url;
process.env.NODE_ENV = 'test';
process.env.JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';
process.env.BCRYPT_ROUNDS = '4';
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
process.env.RATE_LIMIT_ENABLED = 'false';
process.env.CSRF_ENABLED = 'false';
process.env.REQUIRE_EMAIL_VERIFICATION = 'true';
process.env.MATCHING_SCHEDULER_ENABLED = 'false';
process.env.FRONTEND_URL = 'http://frontend.test';
delete process.env.SMTP_HOST;
delete process.env.REDIS_URL;
