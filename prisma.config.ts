import { defineConfig } from 'prisma/config';

// Prisma 7 keeps the connection URL out of the schema. `env("DATABASE_URL")` would throw
// when it is unset (embedded-database mode), so read process.env directly.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
