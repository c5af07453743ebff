import { loadConfig, type Config } from '../../src/config/index';
import { createContainer, type Container, type ContainerOverrides } from '../../src/container';

/** Partial settings, any depth (e.g. `{ rateLimit: { enabled: true } }`). */
export type ConfigOverrides = { [K in keyof Config]?: Config[K] extends object ? Partial<Config[K]> : Config[K] };

/**
 * The test configuration (tests/setup/env.ts sets the environment of the run) with overrides.
 * Tests never change a configuration after a container was built from it: they build another.
 */
export function testConfig(overrides: ConfigOverrides = {}): Config {
  const base = loadConfig(process.env);
  const merged = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(overrides)) {
    const current = merged[key];
    merged[key] =
      value && typeof value === 'object' && !Array.isArray(value) && current && typeof current === 'object'
        ? { ...(current as object), ...(value as object) }
        : value;
  }
  return merged as Config;
}

let shared: Container | undefined;
/** containers of useTestContainer blocks, innermost last */
const scoped: Container[] = [];

/** The container of the running tests: the innermost useTestContainer's, else the file's shared one. */
export function testContainer(): Container {
  const inner = scoped[scoped.length - 1];
  if (inner) return inner;
  shared ??= createContainer(testConfig());
  return shared;
}

/** A container of its own with other settings; the caller closes it. */
export function createTestContainer(overrides: ConfigOverrides = {}, parts: ContainerOverrides = {}): Container {
  return createContainer(testConfig(overrides), parts);
}

/**
 * For a whole test file (or describe block): api() and the test server use a container built
 * with these settings (a function is evaluated in beforeAll, e.g. for a port known only then);
 * it is closed after the block.
 */
export function useTestContainer(overrides: ConfigOverrides | (() => ConfigOverrides)): void {
  let container: Container | undefined;
  beforeAll(() => {
    container = createTestContainer(typeof overrides === 'function' ? overrides() : overrides);
    scoped.push(container);
  });
  afterAll(async () => {
    if (!container) return;
    scoped.splice(scoped.indexOf(container), 1);
    await container.close();
  });
}

/** Runs `fn` with a container of its own (other settings) and closes it afterwards. */
export async function withTestContainer<T>(overrides: ConfigOverrides, fn: (c: Container) => Promise<T>): Promise<T> {
  const container = createTestContainer(overrides);
  try {
    return await fn(container);
  } finally {
    await container.close();
  }
}

/** Closes the file's shared container (tests/setup/after-env.ts, after the file). */
export async function closeTestContainer(): Promise<void> {
  const c = shared;
  shared = undefined;
  await c?.close();
}
