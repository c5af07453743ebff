import { Router } from 'express';

export const eventsRouter = Router();
