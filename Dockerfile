# The unstuck worker image (used by docker-compose.yml).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /out/unstuck-worker ./worker && CGO_ENABLED=0 go build -o /out/unstuck ./starter

FROM gcr.io/distroless/static-debian12
COPY --from=build /out/unstuck-worker /out/unstuck /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/unstuck-worker"]
