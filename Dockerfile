# Cairn API or worker image: `cairn api` / `cairn worker` (see docker-compose.yml).
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends git python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV CAIRN_HOME=/.cairn NODE_ENV=production HOST=0.0.0.0
VOLUME ["/.cairn"]
ENTRYPOINT ["node", "bin/cairn.mjs"]
CMD ["start"]
