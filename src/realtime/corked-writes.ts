import type { Server } from 'socket.io';

/**
 * One system call per batch of frames instead of one per frame.
 *
 * engine.io sends the packets queued for a WebSocket connection together
 * (`transport.send(packets)`: while one write is in flight, later packets wait in the socket's
 * buffer and leave together), but ws writes each of them as its own frame with its own write, so
 * a member of a big event room that is sent the presence deltas of 50 joins gets 50 `writev`
 * calls. In a reconnect storm of 3 000 dancers that was most of the service's CPU
 * (docs/event-day.md: `writev` 58 % of a CPU profile of the restart). Corking the connection's TCP
 * socket for the duration of one `send` makes the kernel see the batch in one call; the bytes,
 * the frames and their order are unchanged, and the write callbacks fire as before (after the
 * data was handed to the kernel).
 *
 * engine.io and ws keep these objects private (`transport.socket` is ws' WebSocket, `_socket` its
 * net.Socket), so every step is checked: a transport that does not look as expected (long-polling,
 * another engine.io version) is left as it is.
 */
export function corkWebSocketWrites(io: Server): void {
  io.engine.on('connection', (conn: EngineConnection) => {
    corkTransport(conn.transport);
    // a client that starts on long-polling moves to a WebSocket later
    conn.on('upgrade', (transport: EngineTransport) => corkTransport(transport));
  });
}

interface NetSocketLike {
  cork(): void;
  uncork(): void;
}

interface EngineTransport {
  name?: string;
  socket?: { _socket?: Partial<NetSocketLike> };
  send?: (packets: unknown[]) => void;
}

interface EngineConnection {
  transport: EngineTransport;
  on(event: 'upgrade', listener: (transport: EngineTransport) => void): void;
}

const corked = new WeakSet<EngineTransport>();

function corkTransport(transport: EngineTransport | undefined): void {
  if (!transport || transport.name !== 'websocket' || corked.has(transport)) return;
  const raw = transport.socket?._socket;
  const send = transport.send;
  if (!raw || typeof raw.cork !== 'function' || typeof raw.uncork !== 'function' || typeof send !== 'function') return;
  const tcp = raw as NetSocketLike;
  corked.add(transport);
  transport.send = function (this: EngineTransport, packets: unknown[]) {
    if (packets.length < 2) return send.call(this, packets);
    tcp.cork();
    try {
      send.call(this, packets);
    } finally {
      tcp.uncork();
    }
  };
}
