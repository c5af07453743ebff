import { createClient, ErrorReply, type RedisClientType } from 'redis';
import type { Logger } from './logger.js';

/**
 * How long a request or a socket acknowledgement waits for any one Redis call (issue 23,
 * DECISIONS "Redis trouble"). node-redis's own timeouts bound only how long a command waits to be
 * sent, not its reply (TOOLCHAIN.md), so every call on a request's path goes through `call()`.
 */
export const REDIS_DEADLINE_MS = 1000;

/** Thrown by `call()` while Redis is known to be down, or when it did not answer within the deadline. */
export class RedisUnavailableError extends Error {
  constructor(message = 'Redis did not answer') {
    super(message);
    this.name = 'RedisUnavailableError';
  }
}

/** `promise`, or a RedisUnavailableError after `ms`; the late promise's own rejection is swallowed. */
export function withDeadline<T>(promise: Promise<T>, ms: number = REDIS_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => undefined);
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RedisUnavailableError(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** How often a probe is sent while Redis is down (only one is outstanding at a time). */
const PROBE_INTERVAL_MS = 1000;

/**
 * Shared Redis connections, only when REDIS_URL is set: one for commands (rate-limit
 * store, Socket.IO adapter publisher) and one subscriber for the Socket.IO adapter.
 * Connections are opened lazily on first use; commands issued while connecting are queued
 * by the client, which reconnects by itself.
 *
 * Redis trouble (issue 23): a connection error or a call past its deadline marks Redis
 * unavailable, logged once ("Redis unavailable ..."). Meanwhile `available` is false and callers
 * fall back to this instance (rate limits in memory, the chat flood limit per instance,
 * presence and `fetchSockets` on local sockets, broadcasts to local sockets only), without
 * waiting on Redis at all. One PING at a time probes it; when one is answered, sharing resumes
 * and that is logged once ("Redis answers again ...").
 */
export class RedisConnections {
  private commandClient: RedisClientType | undefined;
  private subscriberClient: RedisClientType | undefined;
  private down = false;
  private probe: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly url: string | undefined,
    private readonly logger: Logger,
    /** REDIS_KEY_PREFIX: every key and channel name the service uses starts with it */
    readonly keyPrefix = '',
  ) {}

  get enabled(): boolean {
    return Boolean(this.url);
  }

  /** False from a connection error or a missed deadline until a probe is answered again. */
  get available(): boolean {
    return this.enabled && !this.down;
  }

  private open(name: string): RedisClientType {
    const client = createClient({ url: this.url }) as RedisClientType;
    client.on('error', (err: unknown) => this.reportFailure(err, name));
    client.connect().catch((err: unknown) => this.reportFailure(err, name));
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

  /**
   * Runs one Redis call of a request's path: at once RedisUnavailableError while Redis is down,
   * else the call's result within REDIS_DEADLINE_MS; a failure or a missed deadline marks Redis
   * down (see the class comment) and is rethrown for the caller's fallback.
   */
  async call<T>(fn: (client: RedisClientType) => Promise<T>, ms: number = REDIS_DEADLINE_MS): Promise<T> {
    if (this.down) throw new RedisUnavailableError('Redis is unavailable');
    try {
      return await withDeadline(fn(this.command()), ms);
    } catch (err) {
      if (isReplyError(err)) throw err;
      this.reportFailure(err, 'command');
      throw err;
    }
  }

  /** Marks Redis down (logged once per outage) and starts probing for its return. */
  reportFailure(err: unknown, client: string): void {
    if (this.closed) return;
    if (!this.down) {
      this.down = true;
      const reason =
        err instanceof Error && err.message
          ? err.message.split('\n')[0]
          : String((err as { code?: unknown })?.code ?? err);
      this.logger.warn(
        { client, reason },
        'Redis unavailable: rate limits, the chat flood limit, presence and broadcasts use this instance only until it answers again',
      );
    }
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.probe || this.closed) return;
    this.probe = setTimeout(() => {
      if (this.closed) return;
      // one PING outstanding at a time: it waits in the client's queue (Redis restarting) or on
      // the open connection (Redis frozen) and is answered as soon as Redis is back
      this.command()
        .ping()
        .then(
          () => {
            this.probe = undefined;
            if (this.closed || !this.down) return;
            this.down = false;
            this.logger.info(
              'Redis answers again: rate limits, presence and broadcasts are shared across instances again',
            );
          },
          () => {
            this.probe = undefined;
            if (this.down) this.scheduleProbe();
          },
        );
    }, PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.probe) clearTimeout(this.probe);
    const clients = [this.commandClient, this.subscriberClient].filter((c): c is RedisClientType => Boolean(c));
    this.commandClient = undefined;
    this.subscriberClient = undefined;
    await Promise.all(clients.map(closeClient));
  }
}

/** An error reply of Redis itself (NOSCRIPT, WRONGTYPE …): Redis answered, so it is not down. */
function isReplyError(err: unknown): boolean {
  return err instanceof ErrorReply;
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
  const timedOut = new Promise<'timeout'>(
    (resolve) => (timer = setTimeout(() => resolve('timeout'), CLOSE_TIMEOUT_MS)),
  );
  const outcome = await Promise.race([client.close().catch(() => undefined), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') client.destroy();
}
