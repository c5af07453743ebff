import type { WebrtcSignalRelay } from '../../src/realtime/types';
import { nextEvent, type ClientSocket } from './socket';

/** A small but realistic offer SDP (the service only checks its size). */
export const SAMPLE_SDP = [
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  'c=IN IP4 0.0.0.0',
  'a=ice-ufrag:abcd',
  'a=ice-pwd:abcdefghijklmnopqrstuvwx',
  'a=fingerprint:sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF',
  'a=setup:actpass',
  'a=mid:0',
  'a=sctp-port:5000',
  '',
].join('\r\n');

export const SAMPLE_CANDIDATE = {
  candidate: 'candidate:1 1 udp 2113937151 127.0.0.1 50000 typ host generation 0',
  sdpMid: '0',
  sdpMLineIndex: 0,
  usernameFragment: 'abcd',
};

/**
 * Records every `webrtc_signal` a socket receives. `until(marker)` resolves with everything
 * received up to and including the first relay whose data equals the marker: sent after a
 * refused signal, it proves (by the relay's ordering, not by a timeout) that nothing else came.
 */
export function collectSignals(socket: ClientSocket) {
  const received: WebrtcSignalRelay[] = [];
  socket.on('webrtc_signal', (relay) => received.push(relay));
  return {
    received,
    async until(markerCandidate: string): Promise<WebrtcSignalRelay[]> {
      const seen = () => received.some((r) => (r.data as { candidate?: string } | null)?.candidate === markerCandidate);
      while (!seen()) await nextEvent(socket, 'webrtc_signal', 5000);
      return [...received];
    },
    /** Resolves once `count` relays arrived (relays of concurrent signals may arrive in any order). */
    async untilCount(count: number): Promise<WebrtcSignalRelay[]> {
      while (received.length < count) await nextEvent(socket, 'webrtc_signal', 5000);
      return [...received];
    },
  };
}
