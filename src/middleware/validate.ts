import type { NextFunction, Request, Response } from 'express';
import { validationResult, type ValidationChain } from 'express-validator';
import { validationFailed } from '../lib/errors.js';

/**
 * Runs express-validator chains and answers 400 "Validation failed" with
 * `details: [{ field, message }]` (one entry per field, first message wins).
 */
export function validate(...chains: ValidationChain[]) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    for (const chain of chains) await chain.run(req);
    const result = validationResult(req);
    if (!result.isEmpty()) {
      const details = result.array({ onlyFirstError: true }).map((e) => ({
        field: e.type === 'field' ? e.path : e.type,
        message: String(e.msg),
      }));
      throw validationFailed(details);
    }
    next();
  };
}
