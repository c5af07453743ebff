/**
 * Architecture rules, checked in CI (`npm run lint:deps`). The layout (docs/contributing.md):
 * - src/modules/<feature>/ owns its tables; other features reach it through its service (injected
 *   by src/container.ts, so a feature imports another feature's *types* only) or through the
 *   declarations it exports for others: `<feature>.views.ts` (response views) and
 *   `<feature>.schemas.ts` (input declarations).
 * - src/lib, src/middleware, src/config and src/docs are shared and never import a feature.
 * - Only the composition root (src/container.ts, src/app.ts, src/routes.ts, src/server.ts,
 *   src/cli*, src/http-server.ts, src/realtime/) wires features together.
 * - No runtime import cycles.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cross-feature-value-import',
      comment:
        'A feature imports another feature only for types, or its exported views/schemas; values come in through the container.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/([^/]+)/',
        pathNot: ['^src/modules/$1/', '\\.(views|schemas)\\.ts$'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'shared-code-never-imports-features',
      comment:
        "src/lib, src/middleware and src/config are below every feature (src/docs assembles the features' documentation, like the root).",
      severity: 'error',
      from: { path: '^src/(lib|middleware|config)/' },
      to: {
        path: '^src/(modules|container\\.ts|app\\.ts|routes\\.ts|server\\.ts|cli)',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'features-never-import-the-root',
      comment: 'Routers and services receive their dependencies; they never import the composition root.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(container|app|routes|server|cli)\\.ts$' },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^tests/' },
    },
    {
      name: 'no-circular',
      comment: 'No runtime import cycles (a type-only edge inside a cycle, such as engine input types, is allowed).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules', 'src/generated'] },
    exclude: { path: ['src/generated'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.cjs', '.json'] },
  },
};
