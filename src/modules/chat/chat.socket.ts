import type { SocketRegistrar } from '../../realtime/io.js';

export const registerChatSocket: SocketRegistrar = () => {};
