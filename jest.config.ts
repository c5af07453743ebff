import type { Config } from 'jest';

const config: Config = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    // isolatedModules: transpile only; `npm run typecheck` does the type checking once.
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  // A fresh PostgreSQL database per run, migrated and seeded (tests/setup/global-setup.ts).
  globalSetup: '<rootDir>/tests/setup/global-setup.ts',
  globalTeardown: '<rootDir>/tests/setup/global-teardown.ts',
  setupFiles: ['<rootDir>/tests/setup/env.ts'],
  setupFilesAfterEnv: ['<rootDir>/tests/setup/after-env.ts'],
  testTimeout: 30000,
  // One worker runs the files one after another (as --runInBand did) and is replaced when its heap
  // passes this after a file: a single process running every file ran out of heap (about 4 GB).
  workerIdleMemoryLimit: '1536MB',
};

export default config;
