# syntax=docker/dockerfile:1
# shift-export on the current Node LTS. Build stage compiles TypeScript; the runtime stage has
# production dependencies only and runs as the unprivileged `node` user.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY stubs ./stubs
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY jobs ./jobs
COPY bench ./bench
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY stubs ./stubs
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
USER node
EXPOSE 3000 8080
ENTRYPOINT ["node", "bin/shift-export.js"]
CMD ["worker"]
