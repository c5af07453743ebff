/**
 * (a) of `npm run bench:http`: bare Express 5 answering a small JSON document, the ceiling of
 * the framework on this machine. Runs in its own process; PORT from the environment.
 */
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.get('/hello', (_req, res) => {
  res.json({ success: true, data: { hello: 'world' } });
});
app.listen(Number(process.env.PORT), '127.0.0.1');
