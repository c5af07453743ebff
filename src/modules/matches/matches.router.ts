import { Router } from 'express';

export const matchesRouter = Router();
