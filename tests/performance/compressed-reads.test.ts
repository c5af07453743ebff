import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { prisma } from '../helpers/db';
import { createEvent, createUser, joinEvent, type TestUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/server-process';

/**
 * A large held answer goes gzipped to the callers that accept gzip, compressed once
 * (src/lib/compressed-body.ts, src/middleware/cached-read.ts); the requests here are raw HTTP,
 * so that nothing decompresses or asks for an encoding unless the test says so.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, {});
  expect(await server.container.readCache!.start()).toBe(true);
});

afterAll(async () => {
  await server?.close();
});

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** the bytes as they came over the wire */
  bytes: Buffer;
}

function rawGet(path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The text of an answer, gunzipped if it came gzipped. */
const textOf = (answer: RawAnswer) =>
  (answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.bytes) : answer.bytes).toString('utf8');

/** An event whose details are ~20 kB (a long description), and a participant reading them. */
async function bigDetails(): Promise<{ path: string; me: TestUser; eventId: number }> {
  const me = await createUser();
  const event = await createEvent({ description: `A long weekend of West Coast Swing. ${'Dance! '.repeat(2_800)}` });
  await joinEvent(me.user, event);
  const path = `/api/events/${event.slug}/details`;
  // the first read creates the event's check-in token (a write): later answers are held
  expect((await rawGet(path, { authorization: me.auth })).status).toBe(200);
  return { path, me, eventId: event.id };
}

/** Reads with gzip accepted until the answer comes gzipped (its copy is made in the background). */
async function gzippedAnswer(path: string, auth: string): Promise<RawAnswer> {
  let answer: RawAnswer | undefined;
  await until(async () => {
    answer = await rawGet(path, { authorization: auth, 'accept-encoding': 'gzip, deflate, br' });
    return answer.headers['content-encoding'] === 'gzip';
  }, 20);
  return answer!;
}

describe('large hot reads and gzip', () => {
  it('sends a large held answer gzipped to a caller that accepts gzip: the same JSON and ETag, a fraction of the bytes', async () => {
    const { path, me } = await bigDetails();
    const plain = await rawGet(path, { authorization: me.auth });
    const zipped = await gzippedAnswer(path, me.auth);

    expect(zipped.status).toBe(200);
    expect(textOf(zipped)).toBe(plain.bytes.toString('utf8'));
    expect(JSON.parse(textOf(zipped))).toMatchObject({ success: true, data: { event: { id: expect.any(Number) } } });
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    expect(zipped.headers['content-type']).toBe(plain.headers['content-type']);
    expect(Number(zipped.headers['content-length'])).toBe(zipped.bytes.length);
    expect(zipped.bytes.length).toBeLessThan(plain.bytes.length / 4);
    expect(zipped.headers.vary).toMatch(/Accept-Encoding/);
  });

  it('sends the body as it is to a caller that does not accept gzip, with Vary: Accept-Encoding', async () => {
    const { path, me } = await bigDetails();
    await gzippedAnswer(path, me.auth);
    const refusals: Record<string, string>[] = [
      {},
      { 'accept-encoding': 'gzip;q=0, identity' },
      { 'accept-encoding': 'br' },
    ];
    for (const headers of refusals) {
      const answer = await rawGet(path, { authorization: me.auth, ...headers });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers.vary).toMatch(/Accept-Encoding/);
      expect(JSON.parse(answer.bytes.toString('utf8'))).toMatchObject({ success: true });
    }
  });

  it('answers 304 without a body to a gzip poller that sends the ETag it holds', async () => {
    const { path, me } = await bigDetails();
    const zipped = await gzippedAnswer(path, me.auth);
    const again = await rawGet(path, {
      authorization: me.auth,
      'accept-encoding': 'gzip',
      'if-none-match': zipped.headers.etag!,
    });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
  });

  it('shows a change on the very next gzipped read (the copy belongs to the old answer)', async () => {
    const { path, me, eventId } = await bigDetails();
    const before = await gzippedAnswer(path, me.auth);
    await prisma.event.update({
      where: { id: eventId },
      data: { description: `Moved to the big hall. ${'Dance! '.repeat(2_800)}` },
    });
    const descriptionOf = (answer: RawAnswer) =>
      (JSON.parse(textOf(answer)).data.event.description as string).slice(0, 40);

    const after = await rawGet(path, { authorization: me.auth, 'accept-encoding': 'gzip' });
    expect(after.status).toBe(200);
    expect(descriptionOf(after)).toMatch(/^Moved to the big hall\./);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    // and once its own copy is made, that copy holds the new answer too
    expect(descriptionOf(await gzippedAnswer(path, me.auth))).toMatch(/^Moved to the big hall\./);
  });

  it('compresses a body only once it is sent again: the first answer of a caller starts no compression', async () => {
    const { path, me } = await bigDetails();
    const gzipAccepted = { authorization: me.auth, 'accept-encoding': 'gzip' };
    const first = await rawGet(path, gzipAccepted);
    // a 20 kB copy takes well under a millisecond: had the first answer started one, it would be ready
    await new Promise((r) => setTimeout(r, 200));
    const second = await rawGet(path, gzipAccepted);
    expect(first.headers['content-encoding']).toBeUndefined();
    expect(second.headers['content-encoding']).toBeUndefined();
    expect(second.headers.vary).toMatch(/Accept-Encoding/);
    expect((await gzippedAnswer(path, me.auth)).headers.etag).toBe(second.headers.etag);
  });

  it('never compresses a small answer', async () => {
    const me = await createUser();
    for (let i = 0; i < 3; i++) {
      const answer = await rawGet('/api/users/me', { authorization: me.auth, 'accept-encoding': 'gzip' });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers.vary ?? '').not.toMatch(/Accept-Encoding/);
    }
  });
});
