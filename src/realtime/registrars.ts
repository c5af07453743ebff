import { registerActivityLogSocket } from '../modules/activity-log/activity-log.socket.js';
import { registerChatSocket } from '../modules/chat/chat.socket.js';
import { registerMatchesSocket } from '../modules/matches/matches.socket.js';
import { registerWebrtcSocket } from '../modules/webrtc/webrtc.socket.js';
import type { SocketRegistrar } from './io.js';

/** Every feature's socket handlers. */
export const socketRegistrars: SocketRegistrar[] = [
  registerActivityLogSocket,
  registerChatSocket,
  registerMatchesSocket,
  registerWebrtcSocket,
];
