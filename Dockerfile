# syntax=docker/dockerfile:1
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/prisma-generate.cjs scripts/prisma-generate.cjs
COPY prisma prisma
COPY prisma.config.ts ./
# No dependency install scripts, whatever npm the image has (npm 10 ignores package.json's
# allowScripts): the ones we allow only check things, and @prisma/engines' would download engines.
RUN npm ci --no-audit --no-fund --ignore-scripts && npm run prisma:generate

FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY src src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
# the admin console's page and assets (served from files at /console; no build step)
COPY console console
COPY package.json ./
COPY prisma prisma
# Without DATABASE_URL the service runs its embedded PostgreSQL server with its data here
# (mount a volume on /app/.data to keep it); as the user node, PostgreSQL runs as node too.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s CMD node -e "fetch('http://127.0.0.1:3000/api/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/server.js"]
