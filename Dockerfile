FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY workers ./workers
COPY config ./config
ENV NODE_ENV=production
EXPOSE 8787
CMD ["node", "bin/echo-runner.js", "start"]
