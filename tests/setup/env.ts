import { randomUUID } from 'node:crypto';
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
// One database serves the whole run: each test file gets its own mail queue, so its worker
// sends only the file's mails (to the file's SMTP capture); a failed mail is retried after 1 s.
process.env.MAIL_QUEUE_NAME = `test_${randomUUID().replaceAll('-', '')}`;
process.env.MAIL_RETRY_DELAY_SECONDS = '1';
process.env.MAIL_POLL_INTERVAL_SECONDS = '1';
delete process.env.REDIS_URL;
