# Application image: ingress, worker and migrate all run from it (see docker-compose.yml).
# Node 24 runs the TypeScript sources directly (type stripping); there is no build step.
FROM node:24-bookworm-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so that source changes do not invalidate the npm layer.
# (The npm package "node" in dependencies pins Node 24 on machines whose system Node is
# older; here the system node is already 24 and is the one on PATH.)
# patches/ is applied by the postinstall script (patch-package): a guard for a postgres.js crash on closed sockets.
COPY package.json package-lock.json .npmrc ./
COPY patches ./patches
RUN npm ci --omit=dev && npm cache clean --force

# One COPY per directory: COPY a b ./ would flatten their contents into /app.
COPY core ./core
COPY src ./src
COPY schemas ./schemas
COPY streams ./streams
COPY actors ./actors
COPY infra ./infra

USER node
EXPOSE 8080
CMD ["node", "src/cli/main.ts", "serve"]
