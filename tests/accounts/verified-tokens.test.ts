import jwt from 'jsonwebtoken';
import { TokenAuthenticator } from '../../src/lib/auth';
import { testDatabase } from '../helpers/db';

const SECRET = 'a-test-secret-of-at-least-32-characters!';

describe('verified tokens', () => {
  afterEach(() => jest.restoreAllMocks());

  it('checks a token signature once, and its expiry at every use', () => {
    const tokens = new TokenAuthenticator(testDatabase.sql, { secret: SECRET, expiresInSeconds: 60 });
    const token = tokens.sign({ id: 7, tokenVersion: 2 });
    const verify = jest.spyOn(jwt, 'verify');
    const first = tokens.verify(token);
    expect(tokens.verify(token)).toEqual(first);
    expect(first).toMatchObject({ userId: 7, tokenVersion: 2 });
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('refuses a remembered token from the second its exp names', () => {
    const tokens = new TokenAuthenticator(testDatabase.sql, { secret: SECRET, expiresInSeconds: 60 });
    const token = tokens.sign({ id: 7 });
    const { exp } = jwt.decode(token) as { exp: number };
    expect(tokens.verify(token).userId).toBe(7);
    jest.spyOn(Date, 'now').mockReturnValue(exp * 1000 - 1);
    expect(tokens.verify(token).userId).toBe(7);
    jest.spyOn(Date, 'now').mockReturnValue(exp * 1000);
    expect(() => tokens.verify(token)).toThrow('Invalid or expired token');
  });

  it('never remembers a token it refused', () => {
    const tokens = new TokenAuthenticator(testDatabase.sql, { secret: SECRET, expiresInSeconds: 60 });
    const forged = jwt.sign({}, 'another-secret-of-at-least-32-characters', {
      algorithm: 'HS256',
      subject: '1',
      expiresIn: 60,
    });
    expect(() => tokens.verify(forged)).toThrow('Invalid or expired token');
    expect(() => tokens.verify(forged)).toThrow('Invalid or expired token');
  });

  it('hands each caller its own session object', () => {
    const tokens = new TokenAuthenticator(testDatabase.sql, { secret: SECRET, expiresInSeconds: 60 });
    const token = tokens.sign({ id: 7 });
    tokens.verify(token).userId = 99;
    expect(tokens.verify(token).userId).toBe(7);
  });
});
