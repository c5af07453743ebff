import type { Server } from 'socket.io';

/**
 * One system call per connection per turn of the event loop instead of one per frame.
 *
 * ws writes each frame with its own write, so a member of a big event room that is sent the
 * presence deltas of 50 joins got 50 `writev` calls, and 100 `heats_updated` broadcasts in one
 * turn cost 100 calls per member. In a reconnect storm of 3 000 dancers that was most of the
 * service's CPU (docs/event-day.md: `writev` 58 % of a CPU profile of the restart). The first
 * frame sent to a connection in a turn corks its TCP socket, and the socket is uncorked once the
 * turn's I/O callbacks ran (`setImmediate`): every frame written to it meanwhile reaches the
 * kernel in one call. Bytes, frames and their order are unchanged; nothing waits for a timer, and
 * the write callbacks fire as before (after the data was handed to the kernel).
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
  writable?: boolean;
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
  let held = false;
  const release = () => {
    held = false;
    tcp.uncork();
  };
  transport.send = function (this: EngineTransport, packets: unknown[]) {
    if (!held) {
      held = true;
      tcp.cork();
      setImmediate(release);
    }
    send.call(this, packets);
    // engine.io holds what is sent after this until the last frame of this send was written
    // ('drain'), which with the socket corked is after this turn: it would leave in a second
    // write. ws queues the frames in order either way, and every send still gets its 'drain'
    // (its callbacks run in order), so the transport takes the turn's later packets at once.
    // (socket.io drops a volatile emit only while the transport is not writable: this service
    // sends none.)
    this.writable = true;
  };
}
