import type { Request, Response } from 'express';
import { AppError } from '../../src/lib/errors';
import { eventMessageInput, eventMessagesInput } from '../../src/modules/chat/chat.schemas';
import { validate } from '../../src/middleware/validate';

/** Runs validate(declaration) on a request-like object; its input, or the error it threw. */
async function validated(
  middleware: ReturnType<typeof validate>,
  req: { method: string; params?: object; query?: object; body?: object },
) {
  const res = { locals: {} as Record<string, unknown> };
  try {
    await middleware(
      { params: {}, query: {}, body: {}, ...req } as unknown as Request,
      res as unknown as Response,
      () => undefined,
    );
    return { input: res.locals.input as Record<string, unknown> };
  } catch (error) {
    return { error: error as AppError };
  }
}

describe('validate', () => {
  it('validates a read once per distinct parameters and query, with the same outcome each time', async () => {
    const run = jest.spyOn(eventMessagesInput, 'run');
    try {
      const middleware = validate(eventMessagesInput);
      const first = await validated(middleware, { method: 'GET', params: { slug: 'abc' }, query: { limit: '5' } });
      const again = await validated(middleware, { method: 'GET', params: { slug: 'abc' }, query: { limit: '5' } });
      expect(first).toEqual({ input: { slug: 'abc', limit: 5, before: undefined } });
      expect(again).toEqual(first);
      expect(run).toHaveBeenCalledTimes(1);
      await validated(middleware, { method: 'GET', params: { slug: 'abc' }, query: { limit: '6' } });
      expect(run).toHaveBeenCalledTimes(2);
    } finally {
      run.mockRestore();
    }
  });

  it('refuses a remembered invalid read with the same 400 and details', async () => {
    const middleware = validate(eventMessagesInput);
    const req = { method: 'GET', params: { slug: 'abc' }, query: { limit: '0' } };
    const first = await validated(middleware, req);
    const again = await validated(middleware, { ...req, query: { limit: '0' } });
    expect(first.error?.code).toBe('VALIDATION_ERROR');
    expect(first.error?.details).toEqual([{ field: 'limit', message: 'limit must be an integer from 1 to 100' }]);
    expect(again.error?.details).toEqual(first.error?.details);
  });

  it('hands each request its own copy of a remembered input', async () => {
    const middleware = validate(eventMessagesInput);
    const req = () => ({ method: 'GET', params: { slug: 'abc' }, query: {} });
    const first = await validated(middleware, req());
    (first.input as Record<string, unknown>).slug = 'changed by a handler';
    expect((await validated(middleware, req())).input?.slug).toBe('abc');
  });

  it('validates writes and long queries every time', async () => {
    const run = jest.spyOn(eventMessageInput, 'run');
    const reads = jest.spyOn(eventMessagesInput, 'run');
    try {
      const write = validate(eventMessageInput);
      for (let i = 0; i < 2; i++) await validated(write, { method: 'POST', params: {}, body: { content: 'hi' } });
      expect(run).toHaveBeenCalledTimes(2);
      const read = validate(eventMessagesInput);
      const long = { method: 'GET', params: { slug: 'a'.repeat(300) }, query: {} };
      for (let i = 0; i < 2; i++) await validated(read, long);
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      run.mockRestore();
      reads.mockRestore();
    }
  });
});
