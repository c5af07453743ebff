import { createClient, type RedisClientType } from 'redis';
import { config } from '../config/index.js';
import { logger } from './logger.js';

/**
 * Shared Redis connections, only when REDIS_URL is set: one for commands (rate-limit
 * store, Socket.IO adapter publisher) and one subscriber for the Socket.IO adapter.
 * Connections are opened lazily on first use; commands issued while connecting are queued
 * by the client. Errors are logged (the client reconnects by itself).
 */
let commandClient: RedisClientType | undefined;
let subscriberClient: RedisClientType | undefined;

function open(name: string): RedisClientType {
  const client = createClient({ url: config.redisUrl }) as RedisClientType;
  client.on('error', (err: unknown) => logger.warn({ err, client: name }, 'redis connection error'));
  client.connect().catch((err: unknown) => logger.error({ err, client: name }, 'redis connect failed'));
  return client;
}

export function redisEnabled(): boolean {
  return Boolean(config.redisUrl);
}

export function redisCommandClient(): RedisClientType {
  commandClient ??= open('command');
  return commandClient;
}

export function redisSubscriberClient(): RedisClientType {
  subscriberClient ??= open('subscriber');
  return subscriberClient;
}

export async function closeRedis(): Promise<void> {
  const clients = [commandClient, subscriberClient].filter((c): c is RedisClientType => Boolean(c));
  commandClient = undefined;
  subscriberClient = undefined;
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
}
