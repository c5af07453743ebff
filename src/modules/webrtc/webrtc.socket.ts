import { AppError } from '../../lib/errors.js';
import { logger } from '../../lib/logger.js';
import type { AppServer, AppSocket } from '../../realtime/io.js';
import type { Ack } from '../../realtime/types.js';
import type { WebrtcService } from './webrtc.service.js';
import { parseSignal } from './webrtc.schemas.js';

/**
 * Acknowledges with `{ success: true }` or `{ success: false, error, code }` (the error body of
 * HTTP, without details). Unexpected errors never reach the client verbatim.
 */
async function acknowledge(socket: AppSocket, ack: Ack | undefined, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
    ack?.({ success: true });
  } catch (err) {
    const known = err instanceof AppError;
    if (!known) logger.error({ err, socketId: socket.id }, 'webrtc_signal failed');
    const error = known ? err.message : 'Internal server error';
    const code = known ? err.code : 'INTERNAL_ERROR';
    if (ack) ack({ success: false, error, code });
    else socket.emit('error_message', { error });
  }
}

/**
 * `webrtc_signal` `{ matchSlug, kind, data }`: parsed (shape and size), then relayed by the
 * service to the other member of the match. See the README "Video hand-off".
 */
export function registerWebrtcSocket(_io: AppServer, socket: AppSocket, services: { webrtc: WebrtcService }): void {
  socket.on('webrtc_signal', (payload: unknown, ack?: Ack) => {
    const callback = typeof ack === 'function' ? ack : undefined;
    void acknowledge(socket, callback, () => services.webrtc.relaySignal(socket.data.user, parseSignal(payload)));
  });
}
