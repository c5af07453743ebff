import { AppError } from '../../lib/errors.js';
import { handle, type SocketEdge, type SocketRegistrar } from '../../realtime/io.js';
import { rooms } from '../../realtime/types.js';

/** Admins turn live streaming of the activity log on and off. */
export const registerActivityLogSocket: SocketRegistrar<{ edge: SocketEdge }> = (_io, socket, { edge }) => {
  handle(
    socket,
    'join_admin_activity_logs',
    async () => {
      if (!socket.data.user.isAdmin) throw new AppError('ADMIN_REQUIRED');
      await socket.join(rooms.adminActivityLogs);
    },
    edge,
  );
  handle(
    socket,
    'leave_admin_activity_logs',
    async () => {
      await socket.leave(rooms.adminActivityLogs);
    },
    edge,
  );
};
