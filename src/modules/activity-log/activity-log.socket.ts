import type { Actor } from '../../lib/actor.js';
import { handle, socketActor, type SocketEdge, type SocketRegistrar } from '../../realtime/io.js';
import { rooms } from '../../realtime/types.js';
import type { ActivityLogService } from './activity-log.service.js';

/** What the activity log's socket handlers call. */
export interface ActivityLogSocketDeps {
  audit: Pick<ActivityLogService, 'watch'>;
  edge: SocketEdge;
}

/** Admins turn live streaming of the activity log on and off; the admin rule is the service's (`watch`). */
export const registerActivityLogSocket: SocketRegistrar<ActivityLogSocketDeps> = (_io, socket, { audit, edge }) => {
  const actor = (event: string): Actor => socketActor(socket, event);
  handle(
    socket,
    'join_admin_activity_logs',
    async () => {
      await socket.join(await audit.watch(actor('join_admin_activity_logs')));
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
