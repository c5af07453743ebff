import pino from 'pino';
import { createLogger } from '../src/lib/logger.ts';
const base = createLogger('info', undefined, true);
const child = base.child({}, { redact: [] });
const plain = pino({ level: 'info', base: { service: 'wcs-partner-service' } }, pino.destination({ dest: 1, sync: false }));
const line = () => ({ req: { id: 'b677d17d-c942-400e-b13c-52b794541c4d', method: 'GET', url: '/api/events' }, res: { statusCode: 200 }, responseTime: 2 });
for (const [name, l] of [['child', child], ['base', base], ['plain', plain]] as const) {
  for (let r = 0; r < 3; r++) {
    const n = 200_000; const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) l.info(line(), 'request completed');
    const us = Number(process.hrtime.bigint() - t) / 1e3 / n;
    process.stderr.write(`${name} ${us.toFixed(2)} µs/line\n`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
const dest = pino.destination({ dest: 1, sync: false });
for (let r = 0; r < 3; r++) {
  const n = 200_000; const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) { const l = line(); dest.write(`{"level":30,"time":${Date.now()},"service":"wcs-partner-service","req":{"id":"${l.req.id}","method":"${l.req.method}","url":${JSON.stringify(l.req.url)}},"res":{"statusCode":${l.res.statusCode}},"responseTime":${l.responseTime},"msg":"request completed"}\n`); }
  const us = Number(process.hrtime.bigint() - t) / 1e3 / n;
  process.stderr.write(`template ${us.toFixed(2)} µs/line\n`);
  await new Promise((r) => setTimeout(r, 200));
}
const boom = pino.destination({ dest: 1, sync: false, contentMode: 'buffer' });
const adapter = { write: (s: string) => boom.write(Buffer.from(s) as unknown as string) };
const viaBuffer = pino({ level: 'info', base: { service: 'wcs-partner-service' } }, adapter);
for (let r = 0; r < 3; r++) {
  const n = 200_000; const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) viaBuffer.info(line(), 'request completed');
  const us = Number(process.hrtime.bigint() - t) / 1e3 / n;
  process.stderr.write(`buffer-mode ${us.toFixed(2)} µs/line\n`);
  await new Promise((r) => setTimeout(r, 200));
}
const dest2 = pino.destination({ dest: 1, sync: false, maxWrite: 2048 });
const small = pino({ level: 'info', base: { service: 'wcs-partner-service' } }, dest2);
for (let r = 0; r < 3; r++) {
  const n = 200_000; const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) small.info(line(), 'request completed');
  const us = Number(process.hrtime.bigint() - t) / 1e3 / n;
  process.stderr.write(`maxWrite2k ${us.toFixed(2)} µs/line\n`);
  await new Promise((r) => setTimeout(r, 200));
}
