import { handle, type SocketRegistrar } from '../../realtime/io.js';
import { parseSignal } from './webrtc.schemas.js';

/**
 * `webrtc_signal` `{ matchSlug, kind, data }`: parsed (shape and size), then relayed by the
 * service to the other member of the match. See docs/api.md "Video hand-off between recording partners".
 */
export const registerWebrtcSocket: SocketRegistrar = (_io, socket, { webrtc, logger, metrics }) => {
  handle(
    socket,
    'webrtc_signal',
    async (payload: unknown) => {
      await webrtc.relaySignal(socket.data.user, parseSignal(payload));
    },
    { logger, metrics },
  );
};
