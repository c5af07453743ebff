import { config } from '../../config/index.js';
import { prisma } from '../../lib/prisma.js';
import { emitToUser } from '../../realtime/io.js';
import type { SocketRegistrar } from '../../realtime/io.js';
import { TransfersService } from './transfers.service.js';
import { WebrtcService } from './webrtc.service.js';
import { createWebrtcRouter } from './webrtc.router.js';
import { registerWebrtcSocket } from './webrtc.socket.js';

/**
 * Interim wiring of the video hand-off onto the module singletons (prisma, config,
 * emitToUser). The only place that constructs these services: replace it by the container.
 */
const clock = () => new Date();

export const webrtcServices = {
  webrtc: new WebrtcService({ prisma, config: config.webrtc, clock, notify: emitToUser }),
  transfers: new TransfersService({ prisma, clock, notify: emitToUser }),
};

export const webrtcRouter = createWebrtcRouter(webrtcServices);

export const webrtcSocketRegistrar: SocketRegistrar = (io, socket) => registerWebrtcSocket(io, socket, webrtcServices);
