# georefresh as a container: the CLI is the entrypoint, so `docker run IMAGE backfill --dataset …` and the
# manifests under infra/ pass only arguments. Build: docker build -t ghcr.io/your-org/georefresh:0.1.0 .
#
# Your tasks and config: bake them in (COPY them into /config in a Dockerfile FROM this image) or mount them
# at /config (a Kubernetes ConfigMap, a Batch volume). Config paths resolve against the config file's folder.

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json manifest.schema.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/manifest.schema.json ./manifest.schema.json
# The EPSG index (PROJ's definitions, crs-index/epsg.json): without it only a handful of CRSs would resolve.
COPY crs-index ./crs-index
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
RUN groupadd --system --gid 10001 georefresh \
  && useradd --system --uid 10001 --gid georefresh --home-dir /app --shell /usr/sbin/nologin georefresh \
  && mkdir /config && chown georefresh:georefresh /config
USER 10001:10001
WORKDIR /config
# exec form: the engine's SIGTERM reaches node itself (partitions in flight finish, no more start).
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["--help"]
