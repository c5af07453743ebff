import { Router } from 'express';

export const chatRouter = Router();
