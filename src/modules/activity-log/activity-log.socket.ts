import type { Actor } from '../../lib/actor.js';
import { handle, socketActor, type AppServer, type AppSocket, type SocketEdge } from '../../realtime/io.js';
import { rooms } from '../../realtime/types.js';
import type { ActivityLogService } from './activity-log.service.js';

/** What the activity log's socket handlers call (a container provides it). */
export interface ActivityLogSocketDeps extends SocketEdge {
  audit: Pick<ActivityLogService, 'watch'>;
}

/** Admins turn live streaming of the activity log on and off; the admin rule is the service's (`watch`). */
export function registerActivityLogSocket(_io: AppServer, socket: AppSocket, deps: ActivityLogSocketDeps): void {
  const { audit, logger, metrics } = deps;
  const edge = { logger, metrics };
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
}
