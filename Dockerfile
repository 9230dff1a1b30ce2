# echo-runner: `echo-runner start` (HTTP server, agent worker and scheduler in one process).
# Stage 1 compiles the TypeScript sources to dist/ (scripts/build.mjs); stage 2 runs that output with
# production dependencies only, so no start compiles anything.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# exec, execute_code and process run commands with bash (the grammar the command guard parses),
# never /bin/sh (dash here): the build fails if the base image ever lacks it.
RUN test -x /bin/bash && /bin/bash --version | head -n1
# tools.exec.host: sandbox (the default) runs every command in a bubblewrap sandbox, with socat
# bridging the sandbox to the runner's filtering proxy. The container must allow unprivileged user
# namespaces (docker-compose.yml: security_opt), or exec-class tools report not ready.
RUN apt-get update -qq \
  && apt-get install -y -qq --no-install-recommends bubblewrap socat util-linux \
  && rm -rf /var/lib/apt/lists/* \
  && bwrap --version
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
COPY workers ./workers
COPY config ./config
RUN node scripts/build.mjs

FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build, which stage 1 did (and needs the dev dependencies).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY bin ./bin
COPY config ./config
# dist/config is a link to ../config; the sources stay in stage 1 (the bin compares dist/ against
# the sources it finds: none here).
COPY --from=build /app/dist ./dist
# The data dir (agents' demo workspace; the local redis-server's files when REDIS_URL is unset,
# which this image does not use: it has no redis-server). A volume in docker-compose.yml.
ENV NODE_ENV=production ECHO_RUNNER_DATA_DIR=/data
RUN mkdir -p /data && chown node:node /data
# Agents' tools run commands: not as root.
USER node
EXPOSE 8787
HEALTHCHECK --interval=10s --timeout=5s --retries=6 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8787/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "bin/echo-runner.js", "start"]
