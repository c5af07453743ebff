import { Router } from 'express';

export const matchingRouter = Router();
