import type { Container } from '../container.js';
import { registerActivityLogSocket } from '../modules/activity-log/activity-log.socket.js';
import { registerChatSocket } from '../modules/chat/chat.socket.js';
import { registerMatchesSocket } from '../modules/matches/matches.socket.js';
import { registerWebrtcSocket } from '../modules/webrtc/webrtc.socket.js';
import type { BoundSocketRegistrar, SocketRegistrar } from './io.js';

/** `register` with its dependencies, called once per authenticated connection. */
function bind<Deps>(register: SocketRegistrar<Deps>, deps: Deps): BoundSocketRegistrar {
  return (io, socket) => register(io, socket, deps);
}

/** Every feature's socket handlers, each given the services it calls (as src/routes.ts does for routers). */
export function socketRegistrars(c: Container): BoundSocketRegistrar[] {
  const edge = { logger: c.logger, metrics: c.metrics };
  return [
    bind(registerActivityLogSocket, { audit: c.audit, edge }),
    bind(registerChatSocket, { eventRoom: c.eventRoom, eventMessages: c.eventMessages, notifier: c.notifier, edge }),
    bind(registerMatchesSocket, { privateChat: c.privateChat, notifier: c.notifier, edge }),
    bind(registerWebrtcSocket, { webrtc: c.webrtc, edge }),
  ];
}
