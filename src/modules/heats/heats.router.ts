import { Router } from 'express';

export const heatsRouter = Router();
