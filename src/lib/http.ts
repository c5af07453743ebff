import type { Response } from 'express';

/** Response envelope of DECISIONS.md: `{ success: true, data }`, lists add `count`. */
export function sendData(res: Response, data: unknown, status = 200): void {
  res.status(status).json({ success: true, data });
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export function sendList(
  res: Response,
  data: unknown[],
  extra: { pagination?: Pagination; [key: string]: unknown } = {},
  status = 200,
): void {
  res.status(status).json({ success: true, count: data.length, data, ...extra });
}

export function sendMessage(res: Response, message: string, status = 200): void {
  res.status(status).json({ success: true, message });
}

export function pagination(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, totalPages: Math.max(1, Math.ceil(total / limit)) };
}

/** A confirmation: the text both as `message` and in `data` (clients read either), with extra data fields. */
export function sendConfirmation(res: Response, message: string, extra: Record<string, unknown> = {}, status = 200): void {
  res.status(status).json({ success: true, message, data: { message, ...extra } });
}
