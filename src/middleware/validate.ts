import type { NextFunction, Request, Response } from 'express';
import type { InputDeclaration, InputShape } from './input.js';

/**
 * Validates a request against its input declaration (src/middleware/input.ts) and answers 400
 * "Validation failed" with `details: [{ field, message }]` (one entry per field, first message
 * wins). The validated and sanitised values are kept for `declaration.from(res)`.
 */
export function validate<S extends InputShape>(declaration: InputDeclaration<S>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    res.locals.input = await declaration.run(req);
    res.locals.inputDeclaration = declaration;
    next();
  };
}
