import type { NextFunction, Request, Response } from 'express';
import type { ValidationChain } from 'express-validator';
import { InputDeclaration, runChains, type InputShape } from './input.js';

/**
 * Validates a request against its input declaration (src/middleware/input.ts) and answers 400
 * "Validation failed" with `details: [{ field, message }]` (one entry per field, first message
 * wins). The validated and sanitised values are kept for `declaration.from(res)`.
 *
 * Chains (`validate(...chains)`, read back with `input<T>(res)`) are the older form, kept while
 * the features move to declarations.
 */
export function validate<S extends InputShape>(declaration: InputDeclaration<S>): ReturnType<typeof runDeclaration>;
export function validate(...chains: ValidationChain[]): ReturnType<typeof runLegacyChains>;
export function validate(...args: unknown[]) {
  const [first] = args;
  return first instanceof InputDeclaration ? runDeclaration(first) : runLegacyChains(args as ValidationChain[]);
}

function runDeclaration(declaration: InputDeclaration<InputShape>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    res.locals.input = await declaration.run(req);
    res.locals.inputDeclaration = declaration;
    next();
  };
}

function runLegacyChains(chains: ValidationChain[]) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const data = await runChains(chains, req);
    res.locals.input = { ...(res.locals.input as object | undefined), ...data };
    next();
  };
}

/** The validated input of this request, for routes still validated with chains (see validate()). */
export function input<T>(res: Response): T {
  return (res.locals.input ?? {}) as T;
}
