import type { Prisma } from '../../generated/prisma/client.js';
import { pagination } from '../../lib/http.js';
import { prisma } from '../../lib/prisma.js';

export const ACTIVITY_PAGE_SIZE = 50;
export const ACTIVITY_CATEGORIES = ['auth', 'event', 'match', 'admin', 'chat'] as const;

export interface ActivityLogFilter {
  page: number;
  category?: string;
  action?: string;
  username?: string;
  success?: boolean;
  from?: Date;
  to?: Date;
}

export async function listActivityLogs(filter: ActivityLogFilter) {
  const where: Prisma.ActivityLogWhereInput = {
    category: filter.category,
    action: filter.action,
    username: filter.username ? { equals: filter.username, mode: 'insensitive' } : undefined,
    success: filter.success,
    createdAt: filter.from || filter.to ? { gte: filter.from, lte: filter.to } : undefined,
  };
  const [total, rows] = await Promise.all([
    prisma.activityLog.count({ where }),
    prisma.activityLog.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (filter.page - 1) * ACTIVITY_PAGE_SIZE,
      take: ACTIVITY_PAGE_SIZE,
    }),
  ]);
  return { rows, pagination: pagination(filter.page, ACTIVITY_PAGE_SIZE, total) };
}

export async function distinctActions(): Promise<string[]> {
  const groups = await prisma.activityLog.groupBy({ by: ['action'], orderBy: { action: 'asc' } });
  return groups.map((g) => g.action);
}

export async function activityStats() {
  const since = new Date(Date.now() - 24 * 60 * 60 * 1000);
  const [total, last24h, failures, byCategoryRows, top] = await Promise.all([
    prisma.activityLog.count(),
    prisma.activityLog.count({ where: { createdAt: { gte: since } } }),
    prisma.activityLog.count({ where: { success: false } }),
    prisma.activityLog.groupBy({ by: ['category'], _count: { _all: true } }),
    prisma.activityLog.groupBy({
      by: ['action'],
      _count: { action: true },
      orderBy: [{ _count: { action: 'desc' } }, { action: 'asc' }],
      take: 10,
    }),
  ]);
  const byCategory = Object.fromEntries(ACTIVITY_CATEGORIES.map((c) => [c, 0])) as Record<(typeof ACTIVITY_CATEGORIES)[number], number>;
  for (const row of byCategoryRows) {
    if (row.category in byCategory) byCategory[row.category as keyof typeof byCategory] = row._count._all;
  }
  return { total, last24h, failures, byCategory, topActions: top.map((t) => ({ action: t.action, count: t._count.action })) };
}
