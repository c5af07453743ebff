import { createHmac } from 'node:crypto';

/** ICE settings of the service (config.webrtc). */
export interface IceConfig {
  stunUrls: string[];
  turnUrls: string[];
  turnSecret?: string;
  turnTtlSeconds: number;
}

/** The browser's RTCIceServer dictionary. */
export interface IceServer {
  urls: string[];
  username?: string;
  credential?: string;
}

export interface IceServersView {
  iceServers: IceServer[];
  /** lifetime of the TURN credentials: fetch the list again before it runs out */
  ttlSeconds: number;
}

/**
 * Time-limited TURN credentials of the TURN REST API scheme (coturn `use-auth-secret`):
 * username `<unix expiry>:<userId>`, credential base64(HMAC-SHA1(secret, username)).
 * coturn recomputes the HMAC with the same secret and refuses the username after its expiry.
 */
export function turnCredentials(secret: string, userId: number, now: Date, ttlSeconds: number) {
  const expiry = Math.floor(now.getTime() / 1000) + ttlSeconds;
  const username = `${expiry}:${userId}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential, expiresAt: new Date(expiry * 1000) };
}

/**
 * The RTCIceServer list for one user: the STUN URLs (if any), then the TURN URLs with fresh
 * credentials when TURN is configured and `withTurn` (the caller may use a relay). Without
 * either, an empty list (LAN-only deployment: host candidates only).
 */
export function iceServersFor(config: IceConfig, userId: number, now: Date, withTurn = true): IceServersView {
  const iceServers: IceServer[] = [];
  if (config.stunUrls.length > 0) iceServers.push({ urls: [...config.stunUrls] });
  if (withTurn && config.turnUrls.length > 0 && config.turnSecret) {
    const { username, credential } = turnCredentials(config.turnSecret, userId, now, config.turnTtlSeconds);
    iceServers.push({ urls: [...config.turnUrls], username, credential });
  }
  return { iceServers, ttlSeconds: config.turnTtlSeconds };
}
