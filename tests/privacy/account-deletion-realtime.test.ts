import type { ChatMessagePayload, MatchNotification } from '../../src/realtime/types';
import { DEFAULT_PASSWORD } from '../helpers/factories';
import { createHistory } from '../helpers/privacy';
import { useTestServer } from '../helpers/server';
import { connectSocket, emitAck, nextEvent, useSocketClients } from '../helpers/socket';

describe('account deletion over the real-time channel', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);

  it("disconnects the user's sockets at once, tells the room user_left and each partner match_cancelled from the placeholder", async () => {
    const h = await createHistory();
    const danaSocket = await connect(h.dana);
    const partnerSocket = await connect(h.partner);
    const carolSocket = await connect(h.carol);
    expect(await emitAck(danaSocket, 'join_event_room', h.event.slug)).toMatchObject({ success: true });
    expect(await emitAck(partnerSocket, 'join_event_room', h.event.slug)).toMatchObject({ success: true });
    const disconnected = new Promise<string>((resolve) => danaSocket.once('disconnect', resolve));
    const left = nextEvent<{ userId: number }>(partnerSocket, 'user_left', 10_000);
    const partnerCancelled = nextEvent<MatchNotification>(partnerSocket, 'match_cancelled', 10_000);
    const carolCancelled = nextEvent<MatchNotification>(carolSocket, 'match_cancelled', 10_000);

    const res = await server.request
      .delete('/api/users/me')
      .set('Authorization', h.dana.auth)
      .send({ currentPassword: DEFAULT_PASSWORD });
    expect(res.status).toBe(200);

    await expect(disconnected).resolves.toBe('io server disconnect');
    await expect(left).resolves.toEqual({ userId: h.dana.user.id });
    const placeholder = { id: null, username: 'deleted-user', avatar: null, firstName: null, lastName: null };
    await expect(partnerCancelled).resolves.toEqual({
      matchSlug: h.match.slug,
      event: { slug: h.event.slug, name: h.event.name },
      from: placeholder,
    });
    await expect(carolCancelled).resolves.toEqual({
      matchSlug: h.pendingMatch.slug,
      event: { slug: h.event.slug, name: h.event.name },
      from: placeholder,
    });
  });

  it("refuses a new socket handshake with the deleted account's token", async () => {
    const h = await createHistory();
    await server.request
      .delete('/api/users/me')
      .set('Authorization', h.dana.auth)
      .send({ currentPassword: DEFAULT_PASSWORD });
    await expect(connectSocket(server.url, h.dana.token)).rejects.toThrow(/Invalid or expired token/);
  });

  it('shows the deleted author\'s messages as "[deleted]" by the placeholder in message_history', async () => {
    const h = await createHistory();
    await server.request
      .delete('/api/users/me')
      .set('Authorization', h.dana.auth)
      .send({ currentPassword: DEFAULT_PASSWORD });
    const socket = await connect(h.partner);
    const history = nextEvent<ChatMessagePayload[]>(socket, 'message_history');
    expect(await emitAck(socket, 'join_event_room', h.event.slug)).toMatchObject({ success: true });
    const messages = await history;
    expect(messages.map((m) => m.id)).toEqual([...h.danaMessageIds, h.partnerMessageId]);
    for (const m of messages.slice(0, 2))
      expect(m).toMatchObject({ userId: null, username: 'deleted-user', avatar: null, content: '[deleted]' });
  });
});
