import { RedisAdapter, type RedisAdapterOptions } from '@socket.io/redis-adapter';
import type { RedisClientType } from 'redis';
import { withDeadline, REDIS_DEADLINE_MS, type RedisConnections } from '../lib/redis.js';

/**
 * The Socket.IO Redis adapter, made to survive Redis trouble (issue 23, DECISIONS "Redis trouble"):
 * - `fetchSockets` (presence, a user's sockets) and `allRooms` answer within REDIS_DEADLINE_MS;
 *   while Redis is down, or when it does not answer in time, they answer this instance's sockets;
 * - `serverCount` counts only this instance while Redis is down or silent;
 * - broadcasts reach this instance's sockets as always; their PUBLISH is skipped while Redis is
 *   down and its failure is reported (never an unhandled rejection: the adapter does not await it).
 * When Redis answers again (src/lib/redis.ts probes it), sharing resumes by itself.
 */
export function createResilientAdapter(redis: RedisConnections, opts: Partial<RedisAdapterOptions>) {
  const pub = guardedPublisher(redis.command(), redis);
  const sub = redis.subscriber();
  // a plain function: Socket.IO calls it with `new` (an arrow function cannot be)
  return function adapter(nsp: unknown) {
    return new ResilientRedisAdapter(nsp, pub, sub, opts, redis);
  };
}

/** Whether broadcasts of this server reach the sockets of other instances (the Redis adapter is in use). */
export function spansInstances(io: { of(name: '/'): { adapter: unknown } }): boolean {
  return io.of('/').adapter instanceof RedisAdapter;
}

/** The command client with `publish` answered at once (0 receivers) while Redis is down, and never rejecting. */
function guardedPublisher(client: RedisClientType, redis: RedisConnections): RedisClientType {
  const publish = (channel: string, message: string | Buffer): Promise<number> => {
    if (!redis.available) return Promise.resolve(0);
    return client.publish(channel, message).catch((err: unknown) => {
      redis.reportFailure(err, 'publish');
      return 0;
    });
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'publish') return publish;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

type BroadcastOptions = Parameters<RedisAdapter['fetchSockets']>[0];
/** socket.io-adapter's in-memory Adapter (RedisAdapter's parent): this instance's sockets and rooms */
const LocalAdapter = Object.getPrototypeOf(RedisAdapter.prototype) as {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- socket.io-adapter types fetchSockets' answer as any[]
  fetchSockets(this: RedisAdapter, opts: BroadcastOptions): Promise<any[]>;
};

class ResilientRedisAdapter extends RedisAdapter {
  constructor(
    nsp: unknown,
    pubClient: unknown,
    subClient: unknown,
    opts: Partial<RedisAdapterOptions>,
    private readonly redis: RedisConnections,
  ) {
    super(nsp, pubClient, subClient, opts);
  }

  override async serverCount(): Promise<number> {
    if (!this.redis.available) return 1;
    try {
      return await this.redis.call(() => super.serverCount());
    } catch {
      return 1;
    }
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the signature of the method it overrides
  override async fetchSockets(opts: BroadcastOptions): Promise<any[]> {
    const local = () => LocalAdapter.fetchSockets.call(this, opts);
    if (!this.redis.available || opts.flags?.local) return local();
    try {
      return await withDeadline(super.fetchSockets(opts), REDIS_DEADLINE_MS);
    } catch {
      // Redis silent or another instance slow: this instance's sockets (presence may be partial)
      return local();
    }
  }

  override async allRooms(): Promise<Set<string>> {
    const local = () => new Set(this.rooms.keys());
    if (!this.redis.available) return local();
    try {
      return await withDeadline(super.allRooms(), REDIS_DEADLINE_MS);
    } catch {
      return local();
    }
  }
}
