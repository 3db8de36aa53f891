# The unstuck worker image (used by docker-compose.yml).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The worker's build id in its worker deployment (Worker Versioning), stamped
# as make build does: the build context has no .git to take it from.
ARG BUILD_ID
RUN test -n "$BUILD_ID" || { echo "BUILD_ID is empty: set UNSTUCK_BUILD_ID for docker compose build (e.g. UNSTUCK_BUILD_ID=\$(git describe --always --dirty)), or --build-arg BUILD_ID=...: each build needs its own id, so runs stay on the build that started them" >&2; exit 1; }
RUN CGO_ENABLED=0 go build -ldflags "-X github.com/unstuck-dev/unstuck/app.stampedBuildID=$BUILD_ID" -o /out/unstuck-worker ./worker && CGO_ENABLED=0 go build -o /out/unstuck ./starter

FROM gcr.io/distroless/static-debian12
COPY --from=build /out/unstuck-worker /out/unstuck /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/unstuck-worker"]
