import 'dotenv/config';
import { parseArgs } from 'node:util';
import type { Config } from './config/index.js';
import type { Container } from './container.js';
import type { Logger } from './lib/logger.js';
import type { DatabaseKind } from './lib/prisma.js';
import { EmbeddedDatabaseError, EmbeddedDatabaseInUseError } from './lib/embedded-postgres.js';
import { systemActor } from './lib/actor.js';
import { AppError } from './lib/errors.js';
import { ConfigError } from './config/config-error.js';

/**
 * Operator commands (docs/operations.md, "Command line"): `npm run cli -- <command> ...`.
 * The result goes to stdout (JSON where a program may read it, the slug alone on the last line
 * for event:create); log lines go to stderr (src/lib/logger.ts, createCliLogger).
 */
const USAGE = `Usage: npm run cli -- <command>   (a build without npm: node dist/cli.js <command>)
  user:create --email <e-mail> --username <name> [--admin]
                                            create an account (e-mail verified, no mail sent); the password is
                                            read from the environment variable USER_PASSWORD, else generated
                                            and printed
  user:promote <email>                      make a user an admin
  user:demote <email>                       take admin rights from a user
  event:create --name <name> --location <location> --start <ISO date> --end <ISO date>
               [--registry-id <id>] [--description <text>]
                                            create an event; prints its slug on the last line
  matching:run <slug>                       run recording-partner matching for an event now
  demo:seed                                 a demo event: an admin, 40 dancers, heats, check-ins and a matching
                                            run; prints how to sign in (refused in production)
  privacy:purge-ips [--as-of <ISO timestamp>]
                                            clear the IP of activity-log entries older than
                                            ACTIVITY_LOG_IP_RETENTION_DAYS before --as-of (default:
                                            now); prints the number cleared on the last line
  db:backup <file>                          write a consistent backup of the database (also while the service runs)
  db:restore <file> [--force]               restore a backup into an empty database (--force: replace its contents)
  --help                                    this list`;

class UsageError extends Error {}

interface CommandContext {
  config: Config;
  logger: Logger;
  databaseUrl: string;
  kind: DatabaseKind;
  args: string[];
}

interface Command {
  /**
   * Whether the command needs the service's schema (migrations and reference data applied
   * first) and a container. The database commands work on the database as it is.
   */
  container: boolean;
  run(ctx: CommandContext, container: Container | undefined): Promise<void>;
}

const print = (value: unknown) => console.log(typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function onePositional(args: string[], what: string, command: string): string {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one ${what}`);
  return positionals[0];
}

const COMMANDS: Record<string, Command> = {
  'user:create': {
    container: true,
    async run({ args }, c) {
      const { values } = parseArgs({
        args,
        options: { email: { type: 'string' }, username: { type: 'string' }, admin: { type: 'boolean' } },
      });
      const { createUser } = await import('./cli/commands.js');
      const { user, password, generated } = await createUser(c!.operatorAccounts, {
        email: values.email,
        username: values.username,
        isAdmin: values.admin ?? false,
        password: process.env.USER_PASSWORD,
      });
      print({
        id: user.id,
        username: user.username,
        email: user.email,
        isAdmin: user.isAdmin,
        ...(generated ? { password } : {}),
      });
    },
  },
  'user:promote': {
    container: true,
    async run({ args }, c) {
      const user = await c!.operatorAccounts.promoteToAdmin(systemActor('cli'), {
        email: onePositional(args, 'e-mail address', 'user:promote'),
      });
      print(`${user.username} <${user.email}> is now an admin`);
    },
  },
  'user:demote': {
    container: true,
    async run({ args }, c) {
      const user = await c!.operatorAccounts.demoteFromAdmin(systemActor('cli'), {
        email: onePositional(args, 'e-mail address', 'user:demote'),
      });
      print(`${user.username} <${user.email}> is no longer an admin`);
    },
  },
  'event:create': {
    container: true,
    async run({ args }, c) {
      const { values } = parseArgs({
        args,
        options: {
          name: { type: 'string' },
          location: { type: 'string' },
          start: { type: 'string' },
          end: { type: 'string' },
          'registry-id': { type: 'string' },
          description: { type: 'string' },
        },
      });
      const { createEvent } = await import('./cli/commands.js');
      const event = await createEvent(c!.events, { ...values, registryId: values['registry-id'] });
      print(`Created event "${event.name}" (${event.startDate.toISOString()} - ${event.endDate.toISOString()})`);
      print(event.slug);
    },
  },
  'matching:run': {
    container: true,
    async run({ args }, c) {
      const { runMatching } = await import('./cli/commands.js');
      print(await runMatching(c!.matching, onePositional(args, 'event slug', 'matching:run')));
    },
  },
  'privacy:purge-ips': {
    container: true,
    async run({ args }, c) {
      const { values } = parseArgs({ args, options: { 'as-of': { type: 'string' } } });
      const { purgeIps } = await import('./cli/commands.js');
      print(String(await purgeIps(c!, values['as-of'])));
    },
  },
  'demo:seed': {
    container: true,
    async run(_ctx, c) {
      const { seedDemo } = await import('./cli/demo-seed.js');
      const result = await seedDemo(c!);
      print(
        [
          `Demo event "${result.event.name}": ${result.event.slug}`,
          `  admin:   ${result.admin.email} / ${result.admin.password}`,
          `  dancers: ${result.dancers.count} (e.g. ${result.dancers.example}), all with the password ${result.dancers.password}`,
          `  matching run ${result.matching.runId}: ${result.matching.status}`,
          `Sign in: POST /api/auth/login {"email":"${result.admin.email}","password":"${result.admin.password}"}`,
        ].join('\n'),
      );
      print(JSON.stringify(result));
    },
  },
  'db:backup': {
    container: false,
    async run({ args, databaseUrl, logger }) {
      const file = onePositional(args, 'file name', 'db:backup');
      const { backupDatabase } = await import('./cli/backup.js');
      const summary = await backupDatabase(databaseUrl, file);
      logger.info(summary, 'backup written');
      print(summary);
    },
  },
  'db:restore': {
    container: false,
    async run({ args, config, logger, databaseUrl, kind }) {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { force: { type: 'boolean' } },
      });
      if (positionals.length !== 1) throw new UsageError('db:restore takes exactly one file name');
      const { restoreDatabase } = await import('./cli/backup.js');
      const summary = await restoreDatabase(databaseUrl, positionals[0], { force: values.force ?? false });
      // The migrations newer than the backup and the reference data, as a start would apply them.
      const { createContainer } = await import('./container.js');
      const container = createContainer({ ...config, databaseUrl }, { logger, databaseKind: kind });
      try {
        await container.database.prepare();
      } finally {
        await container.close();
      }
      logger.info(summary, 'backup restored');
      print(summary);
    },
  },
};

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    (name ? console.log : console.error)(USAGE);
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`Unknown command: ${name}`);
  const { loadConfig } = await import('./config/index.js');
  const { createCliLogger } = await import('./lib/logger.js');
  const { resolveDatabase } = await import('./lib/database.js');
  const config = loadConfig(process.env);
  const logger = createCliLogger(config.logLevel);
  // Joins the running service's embedded server, or starts it and stops it when done.
  const database = await resolveDatabase(config, logger, 'cli');
  const ctx: CommandContext = {
    config: { ...config, databaseUrl: database.url },
    logger,
    databaseUrl: database.url,
    kind: database.kind,
    args,
  };
  try {
    if (!command.container) {
      await command.run(ctx, undefined);
      return 0;
    }
    const { createContainer } = await import('./container.js');
    const container = createContainer(ctx.config, { logger, databaseKind: database.kind });
    try {
      await container.database.prepare();
      await command.run(ctx, container);
      return 0;
    } finally {
      await container.close();
    }
  } finally {
    await database.stop();
  }
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      console.error(`${err.message}\n\n${USAGE}`);
    } else if (
      err instanceof AppError ||
      err instanceof EmbeddedDatabaseInUseError ||
      err instanceof EmbeddedDatabaseError
    ) {
      console.error(`Error: ${err.message}`);
    } else if (err instanceof TypeError && (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${err.message}\n\n${USAGE}`);
    } else {
      console.error(err);
    }
    process.exit(1);
  });
