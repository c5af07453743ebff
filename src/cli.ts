import 'dotenv/config';
import { parseArgs } from 'node:util';
import type { Config } from './config/index.js';
import type { Logger } from './lib/logger.js';
import type { DatabaseKind } from './lib/prisma.js';
import { EmbeddedDatabaseError, EmbeddedDatabaseInUseError } from './lib/embedded-postgres.js';
import { AppError } from './lib/errors.js';
import { ConfigError } from './config/config-error.js';

/**
 * Operator commands (README, "Command line"): `npm run cli -- <command> ...`
 *   user:promote <email>
 *   user:demote <email>
 *   event:create --name N --location L --start ISO --end ISO [--registry-id R] [--description D]
 *   matching:run <slug>
 *   privacy:purge-ips [--as-of ISO]
 */
const USAGE = `Usage: npm run cli -- <command>
  user:promote <email>                      make a user an admin
  user:demote <email>                       take admin rights from a user
  event:create --name <name> --location <location> --start <ISO date> --end <ISO date>
               [--registry-id <id>] [--description <text>]
                                            create an event; prints its slug on the last line
  matching:run <slug>                       run recording-partner matching for an event now
  privacy:purge-ips [--as-of <ISO timestamp>]
                                            clear the IP of activity-log entries older than
                                            ACTIVITY_LOG_IP_RETENTION_DAYS before --as-of (default:
                                            now); prints the number cleared on the last line`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  const { loadConfig } = await import('./config/index.js');
  const { createLogger } = await import('./lib/logger.js');
  const { resolveDatabase } = await import('./lib/database.js');
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  // Joins the running service's embedded server, or starts it and stops it when done.
  const database = await resolveDatabase(config, logger, 'cli');
  try {
    return await runCommand({ ...config, databaseUrl: database.url }, logger, database.kind, command, rest);
  } finally {
    await database.stop();
  }
}

async function runCommand(config: Config, logger: Logger, kind: DatabaseKind, command: string, rest: string[]): Promise<number> {
  const { createContainer } = await import('./container.js');
  const commands = await import('./cli/commands.js');
  const container = createContainer(config, { logger, databaseKind: kind });
  try {
    await container.database.prepare();
    switch (command) {
      case 'user:promote': {
        const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
        if (positionals.length !== 1) throw new UsageError('user:promote takes exactly one e-mail address');
        const user = await commands.promoteUser(container, positionals[0]);
        console.log(`${user.username} <${user.email}> is now an admin`);
        return 0;
      }
      case 'user:demote': {
        const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
        if (positionals.length !== 1) throw new UsageError('user:demote takes exactly one e-mail address');
        const user = await commands.demoteUser(container, positionals[0]);
        console.log(`${user.username} <${user.email}> is no longer an admin`);
        return 0;
      }
      case 'event:create': {
        const { values } = parseArgs({
          args: rest,
          options: {
            name: { type: 'string' },
            location: { type: 'string' },
            start: { type: 'string' },
            end: { type: 'string' },
            'registry-id': { type: 'string' },
            description: { type: 'string' },
          },
        });
        const event = await commands.createEvent(container.events, {
          name: values.name,
          location: values.location,
          start: values.start,
          end: values.end,
          registryId: values['registry-id'],
          description: values.description,
        });
        console.log(`Created event "${event.name}" (${event.startDate.toISOString()} - ${event.endDate.toISOString()})`);
        console.log(event.slug);
        return 0;
      }
      case 'matching:run': {
        const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
        if (positionals.length !== 1) throw new UsageError('matching:run takes exactly one event slug');
        const run = await commands.runMatching(container.matching, positionals[0]);
        console.log(JSON.stringify(run, null, 2));
        return 0;
      }
      case 'privacy:purge-ips': {
        const { values } = parseArgs({ args: rest, options: { 'as-of': { type: 'string' } } });
        const cleared = await commands.purgeIps(container, values['as-of']);
        console.log(cleared);
        return 0;
      }
      default:
        throw new UsageError(`Unknown command: ${command}`);
    }
  } finally {
    await container.close();
  }
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      console.error(`${err.message}\n\n${USAGE}`);
    } else if (err instanceof AppError || err instanceof EmbeddedDatabaseInUseError || err instanceof EmbeddedDatabaseError) {
      console.error(`Error: ${err.message}`);
    } else if (err instanceof TypeError && (err as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      console.error(`${err.message}\n\n${USAGE}`);
    } else {
      console.error(err);
    }
    process.exit(1);
  });
