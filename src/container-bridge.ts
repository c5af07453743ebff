import type { PrismaClient } from './generated/prisma/client.js';
import type { Config } from './config/index.js';
import type { Container } from './container.js';
import type { DatabaseKind } from './lib/prisma.js';

/**
 * TRANSITIONAL (issue 11): modules not yet converted to injected services reach the most
 * recently created container through these proxies. Each converted module drops its import;
 * this file goes when nothing imports it.
 */
const open: Container[] = [];

/** The newest open container is the current one; closing it makes the one before current again. */
export function setBridgedContainer(container: Container): void {
  open.push(container);
}

export function releaseBridgedContainer(container: Container): void {
  const i = open.lastIndexOf(container);
  if (i >= 0) open.splice(i, 1);
}

export function bridgedContainer(): Container {
  const current = open[open.length - 1];
  if (!current) throw new Error('No container has been created (transitional bridge)');
  return current;
}

function proxyTo<T extends object>(target: () => T): T {
  return new Proxy({} as T, {
    get(_t, key) {
      const real = target();
      const value = Reflect.get(real, key, real) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(real) : value;
    },
    set(_t, key, value) {
      return Reflect.set(target(), key, value);
    },
    has(_t, key) {
      return Reflect.has(target(), key);
    },
    ownKeys() {
      return Reflect.ownKeys(target());
    },
    getOwnPropertyDescriptor(_t, key) {
      const d = Reflect.getOwnPropertyDescriptor(target(), key);
      return d ? { ...d, configurable: true } : undefined;
    },
  });
}

export const bridgedPrisma = (): PrismaClient => proxyTo(() => bridgedContainer().prisma);
export const bridgedConfig = (): Config => proxyTo(() => bridgedContainer().config);
export const bridgedDatabaseKind = (): DatabaseKind => bridgedContainer().database.kind;
