# Cairn API or worker image: `cairn api` / `cairn worker` (see docker-compose.yml).
FROM node:20-bookworm-slim AS base
RUN apt-get update \
 && apt-get install -y --no-install-recommends git python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app

# Compiles dist/ with the dev dependencies (TypeScript); only dist/ leaves this stage.
FROM base AS build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM base
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
# The sources stay beside the build: defaults/, the launcher script and the workflow sources
# (bundled for the Temporal sandbox at first start) are read from the package root.
COPY . .
COPY --from=build /app/dist ./dist
ENV CAIRN_HOME=/.cairn NODE_ENV=production HOST=0.0.0.0
# What bin/cairn sets outside the image (it says why): two malloc arenas and a fixed trim
# threshold, listed as Cairn's choice so the scripts and assistants Cairn starts do not inherit them.
ENV MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072 CAIRN_MALLOC_DEFAULTS=MALLOC_ARENA_MAX,MALLOC_TRIM_THRESHOLD_
# Not root: Claude Code refuses to run unattended as root (docs/operations.md, "Running as
# root"), and nothing here needs it. The image's `node` user (uid 1000) owns the home; a named
# volume takes that ownership, a bind mount needs it given on the host (chown 1000).
RUN mkdir -p /.cairn && chown node:node /.cairn
USER node
VOLUME ["/.cairn"]
# Liveness of the roles that serve HTTP (start, api); the compose file switches it off for workers.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=4 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3090)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The compiled build directly: it is current by construction, and this image has no TypeScript
# to rebuild it with (bin/cairn.mjs would only check that).
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["start"]
