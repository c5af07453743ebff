import { Router } from 'express';

export const registryRouter = Router();
