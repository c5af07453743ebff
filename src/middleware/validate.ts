import type { NextFunction, Request, Response } from 'express';
import { matchedData, validationResult, type ValidationChain } from 'express-validator';
import { validationFailed } from '../lib/errors.js';

/**
 * Runs express-validator chains and answers 400 "Validation failed" with
 * `details: [{ field, message }]` (one entry per field, first message wins). The validated
 * and sanitised values are kept in `res.locals.input`; handlers read them with `input<T>(res)`.
 */
export function validate(...chains: ValidationChain[]) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    for (const chain of chains) await chain.run(req);
    const result = validationResult(req);
    if (!result.isEmpty()) {
      const details = result.array({ onlyFirstError: true }).map((e) => ({
        field: e.type === 'field' ? e.path : e.type,
        message: String(e.msg),
      }));
      throw validationFailed(details);
    }
    res.locals.input = { ...(res.locals.input as object | undefined), ...matchedData(req, { includeOptionals: true }) };
    next();
  };
}

/** The validated input of this request (see validate()). */
export function input<T>(res: Response): T {
  return (res.locals.input ?? {}) as T;
}
