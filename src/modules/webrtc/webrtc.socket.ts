import { handle, parsePayload, socketActor, type SocketEdge, type SocketRegistrar } from '../../realtime/io.js';
import { webrtcSignalInput } from './webrtc.schemas.js';
import type { WebrtcService } from './webrtc.service.js';

/** What the signaling socket handler calls (src/realtime/registrars.ts). */
export interface WebrtcSocketDeps {
  webrtc: WebrtcService;
  edge: SocketEdge;
}

/**
 * `webrtc_signal` `{ matchSlug, kind, data }`: parsed (shape and size, webrtcSignalInput), then relayed by the
 * service to the other member of the match. See docs/api.md "Video hand-off between recording partners".
 */
export const registerWebrtcSocket: SocketRegistrar<WebrtcSocketDeps> = (_io, socket, { webrtc, edge }) => {
  handle(
    socket,
    'webrtc_signal',
    async (payload: unknown) => {
      const signal = await parsePayload(webrtcSignalInput, payload);
      await webrtc.relaySignal(socketActor(socket, 'webrtc_signal'), signal);
    },
    edge,
  );
};
