import { featureSchemas } from './feature-schemas.js';
import { componentSchemas, type Schema } from './openapi-helpers.js';
import { clientToServer, serverToClient, socketEvents, socketSchemas } from './socket.openapi.js';

/**
 * The real-time channel as an AsyncAPI 3.0 document (GET /api/docs/asyncapi.json), generated from
 * the same source as the OpenAPI document's `x-socket-io` section (./socket.openapi.ts): every
 * event, its room and its payload schema are declared once there. The document describes the
 * service: a client event is an operation the service `receive`s (its acknowledgement is the
 * operation's `reply`), a server event one it `send`s to a room. Rooms are channels
 * (`event_{eventId}`, `match_{matchId}`, `user_{userId}`, `admin_activity_logs`); what goes to
 * one socket only (client events, their acknowledgements, `error_message`, the join answers) is
 * the channel `connection`. Socket.IO has no AsyncAPI binding: the server's protocol is `ws`
 * (Socket.IO's WebSocket transport, path /socket.io, Engine.IO/Socket.IO framing on top).
 */

type Json = Record<string, unknown>;

const CHANNELS: Record<string, { address: string | null; description: string; parameter?: [string, string] }> = {
  connection: { address: null, description: 'One socket: the client events, their acknowledgements and what the service answers to that socket only.' },
  eventRoom: { address: 'event_{eventId}', description: 'The members of an event chat room (joined with join_event_room).', parameter: ['eventId', 'the event id'] },
  matchRoom: { address: 'match_{matchId}', description: 'The two members of a match private chat (joined with join_private_room).', parameter: ['matchId', 'the match id'] },
  userRoom: { address: 'user_{userId}', description: 'Every socket of one user (joined at connect).', parameter: ['userId', 'the user id'] },
  adminActivityLogs: { address: 'admin_activity_logs', description: 'Admins streaming the activity log (join_admin_activity_logs).' },
};

/** The channel of a server event, from its documented room. */
function channelOf(room: string): keyof typeof CHANNELS {
  if (room.startsWith('event_')) return 'eventRoom';
  if (room.startsWith('match_')) return 'matchRoom';
  if (room.startsWith('user_')) return 'userRoom';
  if (room === 'admin_activity_logs') return 'adminActivityLogs';
  return 'connection';
}

const camel = (event: string) => event.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const ref = (pointer: string) => ({ $ref: pointer });

/** The names of `#/components/schemas/...` that `node` refers to, followed through the given schemas. */
function referencedSchemas(node: unknown, all: Record<string, Schema>, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const n of node) referencedSchemas(n, all, found);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.slice('#/components/schemas/'.length);
        if (!found.has(name) && all[name]) {
          found.add(name);
          referencedSchemas(all[name], all, found);
        }
      } else {
        referencedSchemas(value, all, found);
      }
    }
  }
  return found;
}

export function buildAsyncApiDocument(version: string): Json {
  const channels: Json = {};
  for (const [name, c] of Object.entries(CHANNELS)) {
    channels[name] = {
      address: c.address,
      description: c.description,
      messages: {},
      ...(c.parameter ? { parameters: { [c.parameter[0]]: { description: c.parameter[1] } } } : {}),
    };
  }
  const messagesOf = (channel: string) => (channels[channel] as { messages: Json }).messages;
  const messages: Json = {};
  const operations: Json = {};

  for (const [event, e] of Object.entries(clientToServer)) {
    const id = camel(event);
    messages[id] = {
      name: event,
      title: event,
      summary: e.description,
      payload: e.payload ?? { type: 'null', description: 'no payload' },
    };
    messages[`${id}Ack`] = { name: `${event} (acknowledgement)`, summary: `The acknowledgement of ${event}.`, payload: e.ack };
    messagesOf('connection')[id] = ref(`#/components/messages/${id}`);
    messagesOf('connection')[`${id}Ack`] = ref(`#/components/messages/${id}Ack`);
    operations[id] = {
      action: 'receive',
      channel: ref('#/channels/connection'),
      summary: e.description,
      messages: [ref(`#/channels/connection/messages/${id}`)],
      reply: { channel: ref('#/channels/connection'), messages: [ref(`#/channels/connection/messages/${id}Ack`)] },
    };
  }

  for (const [event, e] of Object.entries(serverToClient)) {
    const id = `${camel(event)}Event`;
    const channel = channelOf(e.room);
    messages[id] = { name: event, title: event, summary: e.description, payload: e.payload };
    messagesOf(channel)[id] = ref(`#/components/messages/${id}`);
    operations[`send${id.charAt(0).toUpperCase()}${id.slice(1)}`] = {
      action: 'send',
      channel: ref(`#/channels/${channel}`),
      summary: `${e.description} (to ${e.room})`,
      messages: [ref(`#/channels/${channel}/messages/${id}`)],
    };
  }

  const all: Record<string, Schema> = { ...componentSchemas, ...featureSchemas, ...socketSchemas };
  const schemas = Object.fromEntries([...referencedSchemas(messages, all)].sort().map((name) => [name, all[name]]));

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'WCS partner service real-time API',
      version,
      description: `${socketEvents.description} The HTTP API is described by the OpenAPI document at /api/docs/openapi.json.`,
    },
    defaultContentType: 'application/json',
    servers: {
      service: {
        host: 'localhost:3000',
        protocol: 'ws',
        pathname: '/socket.io',
        description: 'Socket.IO on the API port (the host and port of your deployment). Connect with a Socket.IO client, token in `auth.token`.',
        security: [ref('#/components/securitySchemes/bearer')],
      },
    },
    channels,
    operations,
    components: {
      schemas,
      messages,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The JWT of POST /auth/login, given as `auth: { token }` of the Socket.IO handshake or as an `Authorization: Bearer` header.',
        },
      },
    },
  };
}
