import type { AddressInfo } from 'node:net';
import express from 'express';
import { sendData } from '../../src/lib/http';
import { RenderedJson } from '../../src/lib/sql';

/** The raw answer of a bare app whose one route sends `data` (outside the API, so plain fetch, not the contract-checked supertest). */
async function send(data: unknown) {
  const app = express();
  app.get('/x', (_req, res) => sendData(res, data));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
    const text = await res.text();
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      etag: res.headers.get('etag'),
      text,
      body: JSON.parse(text),
    };
  } finally {
    server.close();
  }
}

describe('sendData with a list PostgreSQL rendered', () => {
  it('splices the rendered text into the envelope, next to values it serialises itself', async () => {
    const rendered = new RenderedJson<{ name: string }[]>('[{"name":"quote \\" and \\u0000 escape"},{"name":"ü"}]');
    const res = await send({ at: new Date('2026-11-24T09:00:00.000Z'), list: rendered, note: 'a "b"' });
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json; charset=utf-8');
    expect(res.text).toBe(
      '{"success":true,"data":{"at":"2026-11-24T09:00:00.000Z","list":[{"name":"quote \\" and \\u0000 escape"},{"name":"ü"}],"note":"a \\"b\\""}}',
    );
    expect(res.body.data.list).toEqual(rendered.parse());
  });

  it('sends plain data unchanged', async () => {
    const res = await send({ a: [1, 2] });
    expect(res.body).toEqual({ success: true, data: { a: [1, 2] } });
  });

  it('gives the same bytes the same ETag, and another rendered text another one', async () => {
    const list = (text: string) => ({ event: { id: 1 }, participants: new RenderedJson(text) });
    const [first, again, other] = [await send(list('[1,2]')), await send(list('[1,2]')), await send(list('[1,3]'))];
    expect(first.etag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    expect(again.etag).toBe(first.etag);
    expect(other.etag).not.toBe(first.etag);
  });

  it('encodes a rendered list once for every answer that holds it', async () => {
    const rendered = new RenderedJson('[{"name":"ü"}]');
    const from = jest.spyOn(Buffer, 'from');
    try {
      await send({ list: rendered });
      await send({ list: rendered });
      expect(from.mock.calls.filter(([value]) => value === rendered.text)).toHaveLength(1);
    } finally {
      from.mockRestore();
    }
  });

  it('puts a large answer together once for every caller whose answer has the same bytes', async () => {
    // ~120 KB: above the size from which bodies are kept (src/lib/http.ts)
    const rendered = new RenderedJson(JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({ n: i }))));
    const concat = jest.spyOn(Buffer, 'concat');
    // the copies of the rendered list into an answer (fetch concatenates what it receives, too)
    const copies = () => concat.mock.calls.filter(([list]) => list.some((b) => b === rendered.encoded().bytes)).length;
    try {
      const first = await send({ checkin: null, list: rendered });
      const again = await send({ checkin: null, list: rendered });
      expect(copies()).toBe(1);
      expect(again.text).toBe(first.text);
      expect(again.etag).toBe(first.etag);
      // another caller's answer differs in a small part: its own body, with its own bytes
      const other = await send({ checkin: { token: 'x' }, list: rendered });
      expect(copies()).toBe(2);
      expect(other.body.data.checkin).toEqual({ token: 'x' });
      expect(other.body.data.list).toHaveLength(10_000);
      expect(other.etag).not.toBe(first.etag);
    } finally {
      concat.mockRestore();
    }
  });
});
