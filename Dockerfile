# The reference server as a sandbox container (README "The sandbox in a container"): both services and the control
# API on port 8080, with the fixed test keys, for a partner's integration tests or a CI service container.
#
#   docker build -t conformance-sandbox .
#   docker run --rm -p 8080:8080 conformance-sandbox                       # conformance serve --test-keys
#   docker run --rm -p 8080:8080 conformance-sandbox serve --host 0.0.0.0 --port 8080 --test-keys --log
#
# The image holds the whole package (bin/conformance.mjs is its entry point), so it runs the suite too:
#   docker run --rm conformance-sandbox --orders-url https://… --quotes-url https://…
FROM node:22-bookworm-slim

WORKDIR /app

# The dependencies first: their layer is reused while only the sources change. --ignore-scripts: the package's own
# `prepare` builds declarations for partners' TypeScript, which the sandbox does not need (and its sources are not
# copied yet); the dependencies' install scripts only check or build what their prebuilt binaries already provide.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

COPY tsconfig.json vitest.config.ts ./
COPY bin ./bin
COPY fixtures ./fixtures
COPY generators ./generators
COPY specs ./specs
COPY suites ./suites
# The code generated from the specs (validators, types, rule ids), once here rather than at every start.
RUN node --import tsx generators/generate.ts --quiet && mkdir reports && chown node:node reports

USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health').then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/conformance.mjs"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080", "--test-keys"]
