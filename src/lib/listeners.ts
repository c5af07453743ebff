import type { Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type ListenOptions, type Server } from 'node:net';

export interface ListenSettings {
  port: number;
  host?: string;
  backlog: number;
  /** listening sockets on the port (LISTEN_SOCKETS); 1 where Node.js has no `reusePort` */
  sockets: number;
}

/** The sockets a server listens on: how many, the port, and how to close those besides the server's own. */
export interface Listening {
  sockets: number;
  port: number;
  /** closes the listening sockets besides the server's own (the server's own: `server.close()`) */
  closeOthers(): void;
}

/** Whether this Node.js binds several listening sockets to one port (`reusePort`: 22.12+, 23.1+). */
export function reusePortSupported(version = process.versions.node): boolean {
  const [major, minor] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

/**
 * Listens with `settings.sockets` listening sockets on one port (SO_REUSEPORT), each handing its
 * connections to the HTTP server (Socket.IO included). Why: libuv accepts one connection per
 * listening socket per turn of the event loop, and under load a turn takes tens of
 * milliseconds, so a burst of new connections (every phone after a restart, every dancer's first
 * poll) waited seconds in the kernel's accept queue while the requests of open connections were
 * answered in milliseconds (docs/event-day.md). With n sockets the kernel spreads the new
 * connections over n queues, and a turn accepts n.
 *
 * Before binding with `reusePort`, the port is bound once without it and released: a port
 * another process listens on fails the start with EADDRINUSE as it always did, instead of
 * silently sharing the port with a second instance.
 */
export async function listenOn(
  server: HttpServer,
  settings: ListenSettings,
  onError: (err: Error) => void,
): Promise<Listening> {
  const { port, host, backlog } = settings;
  const sockets = reusePortSupported() ? Math.max(1, settings.sockets) : 1;
  if (sockets === 1) {
    await listen(server, { port, host, backlog });
    return { sockets, port: boundPort(server), closeOthers: () => undefined };
  }
  if (port !== 0) {
    const probe = createServer();
    await listen(probe, { port, host, backlog: 1 });
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
  await listen(server, { port, host, backlog, reusePort: true });
  const bound = boundPort(server);
  const others: Server[] = [];
  try {
    for (let i = 1; i < sockets; i++) {
      // noDelay as the HTTP server sets it on the connections it accepts itself
      const other = createServer({ noDelay: true }, (socket) => server.emit('connection', socket));
      await listen(other, { port: bound, host, backlog, reusePort: true });
      other.on('error', onError);
      others.push(other);
    }
  } catch (err) {
    for (const other of others) other.close();
    server.close();
    throw err;
  }
  return { sockets, port: bound, closeOthers: () => others.forEach((other) => other.close()) };
}

function listen(server: Server, options: ListenOptions & { reusePort?: boolean }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function boundPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}
