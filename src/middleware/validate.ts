import type { NextFunction, Request, Response } from 'express';
import type { InputDeclaration, InputShape } from './input.js';

/** Outcomes of a declaration's reads kept (the least recently used go first). */
const REMEMBERED = 256;
/** Longer parameters and queries are validated every time (they would make the memory unbounded). */
const REMEMBERED_KEY_MAX = 256;

type Outcome = { input: Record<string, unknown> } | { error: unknown };

/**
 * Validates a request against its input declaration (src/middleware/input.ts) and answers 400
 * "Validation failed" with `details: [{ field, message }]` (one entry per field, first message
 * wins). The validated and sanitised values are kept for `declaration.from(res)`.
 *
 * A read (GET, HEAD) of a declaration without a body depends only on its route parameters and
 * query, and the chains are pure (no clock, no database): its outcome is remembered by those and
 * reused, as the same answer or the same refusal. Running express-validator's chains was a
 * twentieth of a cached hot read's CPU (issue 29, docs/benchmarks.md).
 */
export function validate<S extends InputShape>(declaration: InputDeclaration<S>) {
  const remembered = declaration.shape.body === undefined ? new Map<string, Outcome>() : undefined;
  const outcomeOf = async (req: Request): Promise<Outcome> => {
    try {
      return { input: await declaration.run(req) };
    } catch (error) {
      return { error };
    }
  };
  // named: tests/performance/hot-lane.test.ts finds it before a route's cachedRead
  return async function validateInput(req: Request, res: Response, next: NextFunction): Promise<void> {
    let outcome: Outcome;
    const key =
      remembered && (req.method === 'GET' || req.method === 'HEAD') ? JSON.stringify([req.params, req.query]) : '';
    if (remembered && key && key.length <= REMEMBERED_KEY_MAX) {
      const known = remembered.get(key);
      if (known) {
        // the most recently used last
        remembered.delete(key);
        remembered.set(key, known);
        outcome = known;
      } else {
        outcome = await outcomeOf(req);
        remembered.set(key, outcome);
        if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value as string);
      }
    } else {
      outcome = await outcomeOf(req);
    }
    if ('error' in outcome) throw outcome.error;
    // a copy: a handler may add to its input
    res.locals.input = { ...outcome.input };
    res.locals.inputDeclaration = declaration;
    next();
  };
}
