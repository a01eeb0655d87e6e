# syntax=docker/dockerfile:1
# shift-export on the current Node LTS. Build stage compiles TypeScript; the runtime stage has
# production dependencies only and runs as the unprivileged `node` user.

FROM node:24-bookworm-slim AS build
WORKDIR /app
# The workspace packages' manifests (and the sandbox's bin, which npm links) come before `npm ci`,
# their sources after: a change of source does not reinstall.
COPY package.json package-lock.json ./
COPY stubs ./stubs
COPY packages/wfm-contract/package.json ./packages/wfm-contract/
COPY packages/wfm-sandbox/package.json ./packages/wfm-sandbox/
COPY packages/wfm-sandbox/bin ./packages/wfm-sandbox/bin
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json tsconfig.build.json ./
COPY packages ./packages
COPY src ./src
COPY jobs ./jobs
COPY bench ./bench
# tsc -b: the packages (wfm-contract, then wfm-sandbox), then dist/.
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
# Node 24's V8 gives the young generation 64 MB semi-spaces by default (Node 20: 16 MB): a 1M-row
# CSV export then peaks at ~350 MB instead of ~250 MB, for ~5% less CPU (docs/performance.md).
# 2 MB, as the bin's first line gives: every thread gets the young generation the export threads
# are started with (the flag overrides theirs), and the export's own thread ~30 MB less at 3M rows;
# 2 against 4: 10–45 MB less an export on Node 24 (bin/shift-export.js). A small container wants
# the memory; override NODE_OPTIONS to trade it back.
ENV NODE_OPTIONS=--max-semi-space-size=2
# glibc's malloc with a fixed mmap threshold (128 KiB, its default, no longer raised on its own):
# blocks that large are given back when freed instead of staying in the arenas of the export
# threads that come and go, which a worker running for months grew by (docs/performance.md, the
# soak). The bin's first line sets the same (glibc's short name for glibc.malloc.mmap_threshold).
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY package.json package-lock.json ./
COPY stubs ./stubs
COPY packages/wfm-contract/package.json ./packages/wfm-contract/
COPY packages/wfm-sandbox/package.json ./packages/wfm-sandbox/
COPY packages/wfm-sandbox/bin ./packages/wfm-sandbox/bin
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/packages/wfm-contract/dist ./packages/wfm-contract/dist
COPY --from=build /app/packages/wfm-sandbox/dist ./packages/wfm-sandbox/dist
COPY bin ./bin
USER node
EXPOSE 3000 8080
# Probes what the container runs: the API's /healthz (Redis and the destination), the sandbox's
# port, or a worker's Redis (bin/healthcheck.js).
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
  CMD ["node", "bin/healthcheck.js"]
# The V8 flags of bin/shift-export.js's first line, which `node bin/…` does not read: the old
# generation collected once doubled, gc() for the idle worker, and no Maglev compiler (10–30 MB less
# an export on Node 24; docs/performance.md).
ENTRYPOINT ["node", "--heap-growing-percent=100", "--expose-gc", "--no-maglev", "bin/shift-export.js"]
CMD ["worker"]
