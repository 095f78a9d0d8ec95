# plangate's decision service as a container image.
#   docker build -t plangate .
#   docker run -p 8181:8181 -v "$PWD/rules:/etc/plangate/rules:ro" -v "$PWD/tokens.json:/etc/plangate/tokens.json:ro" plangate
# The build stage compiles TypeScript and better-sqlite3's native addon; the runtime stage
# carries only what `plangate serve` runs, as the unprivileged `node` user.

FROM node:24.22.3-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# npm ci runs `prepare`, which builds dist/ (the validators, tsc, the console bundle).
RUN npm ci && npm prune --omit=dev

FROM node:24.22.3-bookworm-slim
# The rules and the tokens are mounted read-only; the store and the audit default to .data/ in
# the working directory, a volume the node user owns (with a postgres:// PLANGATE_STORE, the
# audit goes to that database). Bound to every address, plangate answers only to the Host names
# it is given (DNS rebinding): this machine's by default; add the names clients use.
ENV NODE_ENV=production \
    PLANGATE_HOST=0.0.0.0 \
    PLANGATE_ALLOWED_HOSTS=localhost,127.0.0.1 \
    PLANGATE_PORT=8181 \
    PLANGATE_RULES=/etc/plangate/rules \
    PLANGATE_TOKENS_FILE=/etc/plangate/tokens.json
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/bin ./bin
COPY --from=build /src/dist ./dist
COPY --from=build /src/policies ./policies
COPY --from=build /src/schemas ./schemas
COPY --from=build /src/node_modules ./node_modules
RUN mkdir -p /var/lib/plangate && chown node:node /var/lib/plangate
USER node
WORKDIR /var/lib/plangate
VOLUME ["/var/lib/plangate"]
EXPOSE 8181
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PLANGATE_PORT+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/plangate.js"]
CMD ["serve"]
