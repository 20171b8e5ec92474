# Cairn's image. Build:  docker build -t cairn .   (or podman build --format docker -t cairn .)
# BASE_IMAGE is any Debian-based image with Node >= 20.18.1 and npm in /usr/local (the official node images,
# or one of your own); both stages use it, so the native module is built against the Node that runs it.
ARG BASE_IMAGE=node:22-bookworm-slim

FROM ${BASE_IMAGE} AS deps
# better-sqlite3 compiles from source (python3, make, g++); tini is copied into the runtime stage.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# node-gyp builds against the headers beside the Node binary instead of downloading them.
ENV npm_config_nodedir=/usr/local npm_config_update_notifier=false
COPY package.json package-lock.json ./
COPY packages/capture/package.json packages/capture/
COPY packages/clients/package.json packages/clients/
COPY packages/contract/package.json packages/contract/
COPY packages/installer/package.json packages/installer/
COPY packages/portal/package.json packages/portal/
COPY packages/server/package.json packages/server/
# Dependencies in their own layer, kept while only sources change; the root "prepare" (the build) runs below.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3 esbuild

FROM deps AS build
COPY tsconfig.base.json ./
COPY .claude-plugin .claude-plugin
COPY plugins plugins
COPY packages packages
RUN npm run build
# What runs, and nothing else: production dependencies, each package's build, the word vectors, the plugin.
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && mkdir -p /out/packages \
 && cp -a package.json node_modules plugins .claude-plugin /out/ \
 && for p in contract installer portal server; do mkdir -p /out/packages/$p && cp -a packages/$p/package.json packages/$p/dist /out/packages/$p/; done \
 && cp -a packages/server/bin packages/server/data packages/server/node_modules /out/packages/server/ \
 && cd /out/node_modules/better-sqlite3 && rm -rf deps src build/Release/obj build/Release/obj.target build/Release/.deps build/Release/test_extension.node build/deps \
 && cd /out && find . -name '*.map' -delete && find node_modules -xtype l -delete \
 && rm -rf node_modules/.bin node_modules/.package-lock.json

FROM ${BASE_IMAGE}
COPY --from=build /usr/bin/tini-static /usr/local/bin/tini
# A fixed numeric user (no useradd needed on the base), so `runAsNonRoot` and volume ownership are predictable.
RUN echo 'cairn:x:10001:10001:Cairn:/home/cairn:/usr/sbin/nologin' >> /etc/passwd \
 && echo 'cairn:x:10001:' >> /etc/group \
 && mkdir -p /data /home/cairn && chown 10001:10001 /data /home/cairn \
 && ln -s /app/packages/server/bin/cairn.js /usr/local/bin/cairn
COPY --from=build /out /app
WORKDIR /app
# Listen on every interface of the container; CAIRN_BASE_URL (the public address) comes from your deployment.
ENV HOST=0.0.0.0 PORT=7411 CAIRN_DATA_DIR=/data HOME=/home/cairn
VOLUME /data
EXPOSE 7411
USER 10001:10001
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||7411)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# tini is PID 1: it passes SIGTERM/SIGINT on to Cairn, which drains and exits, and reaps what it leaves.
ENTRYPOINT ["/usr/local/bin/tini", "--", "node", "--no-concurrent-recompilation", "/app/packages/server/bin/cairn.js"]
CMD ["serve"]
