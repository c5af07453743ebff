import type { Request } from 'express';
import type { Prisma } from '../../generated/prisma/client.js';
import { logger } from '../../lib/logger.js';
import { prisma } from '../../lib/prisma.js';
import { emitToRoom } from '../../realtime/io.js';
import { rooms } from '../../realtime/types.js';

export type ActivityCategory = 'auth' | 'event' | 'match' | 'admin' | 'chat';

export interface ActivityInput {
  category: ActivityCategory;
  /** e.g. "login", "login_failed", "checkin", "match_create" */
  action: string;
  success?: boolean;
  userId?: number | null;
  username?: string | null;
  /** e.g. "event:<slug>", "match:<slug>" */
  resource?: string | null;
  metadata?: Prisma.InputJsonValue;
  /** source of ip, method and path (and of the user when not given) */
  req?: Request;
  ip?: string | null;
}

export interface ActivityLogEntry {
  id: number;
  createdAt: Date;
  category: string;
  action: string;
  userId: number | null;
  username: string | null;
  success: boolean;
  ip: string | null;
  method: string | null;
  path: string | null;
  resource: string | null;
  metadata: unknown;
}

const truncate = (value: string | undefined | null, max: number) =>
  value == null ? null : value.length > max ? value.slice(0, max) : value;

/**
 * Records an activity and streams it to admins watching `admin_activity_logs`.
 * Never throws and never fails the request that triggered it: errors are logged.
 */
export async function logActivity(input: ActivityInput): Promise<ActivityLogEntry | undefined> {
  try {
    const user = input.req?.user;
    const entry = await prisma.activityLog.create({
      data: {
        category: input.category,
        action: truncate(input.action, 100) as string,
        success: input.success ?? true,
        userId: input.userId !== undefined ? input.userId : (user?.id ?? null),
        username: truncate(input.username !== undefined ? input.username : user?.username, 50),
        ip: truncate(input.ip ?? input.req?.ip, 64),
        method: truncate(input.req?.method, 10),
        path: truncate(input.req ? input.req.originalUrl.split('?')[0] : null, 500),
        resource: truncate(input.resource, 200),
        metadata: input.metadata,
      },
    });
    emitToRoom(rooms.adminActivityLogs, 'activity_log_entry', entry as unknown as Record<string, unknown>);
    return entry;
  } catch (err) {
    logger.warn({ err, category: input.category, action: input.action }, 'activity log write failed');
    return undefined;
  }
}
