import { createClient, type RedisClientType } from 'redis';
import type { Logger } from './logger.js';

/**
 * Shared Redis connections, only when REDIS_URL is set: one for commands (rate-limit
 * store, Socket.IO adapter publisher) and one subscriber for the Socket.IO adapter.
 * Connections are opened lazily on first use; commands issued while connecting are queued
 * by the client. Errors are logged (the client reconnects by itself).
 */
export class RedisConnections {
  private commandClient: RedisClientType | undefined;
  private subscriberClient: RedisClientType | undefined;

  constructor(
    private readonly url: string | undefined,
    private readonly logger: Logger,
    /** REDIS_KEY_PREFIX: every key and channel name the service uses starts with it */
    readonly keyPrefix = '',
  ) {}

  get enabled(): boolean {
    return Boolean(this.url);
  }

  private open(name: string): RedisClientType {
    const client = createClient({ url: this.url }) as RedisClientType;
    client.on('error', (err: unknown) => this.logger.warn({ err, client: name }, 'redis connection error'));
    client.connect().catch((err: unknown) => this.logger.error({ err, client: name }, 'redis connect failed'));
    return client;
  }

  command(): RedisClientType {
    this.commandClient ??= this.open('command');
    return this.commandClient;
  }

  subscriber(): RedisClientType {
    this.subscriberClient ??= this.open('subscriber');
    return this.subscriberClient;
  }

  async close(): Promise<void> {
    const clients = [this.commandClient, this.subscriberClient].filter((c): c is RedisClientType => Boolean(c));
    this.commandClient = undefined;
    this.subscriberClient = undefined;
    await Promise.all(clients.map(closeClient));
  }
}

/**
 * Closes a client after its pending commands, within CLOSE_TIMEOUT_MS. A client that is not
 * ready (Redis unreachable or silent) is destroyed at once: waiting for its queued commands
 * would never end.
 */
const CLOSE_TIMEOUT_MS = 2000;
async function closeClient(client: RedisClientType): Promise<void> {
  if (!client.isReady) return client.destroy();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), CLOSE_TIMEOUT_MS)));
  const outcome = await Promise.race([client.close().catch(() => undefined), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') client.destroy();
}
