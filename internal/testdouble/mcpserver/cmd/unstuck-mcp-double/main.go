package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/unstuck-dev/unstuck/internal/testdouble/mcpserver"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "unstuck-mcp-double:", err)
		os.Exit(1)
	}
}

func run() error {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:0) instead of stdio")
	tools := flag.String("tools", "", "comma-separated tools to offer (default all: "+strings.Join(mcpserver.AllTools, ",")+")")
	logPath := flag.String("log", "", "append one JSON line per tool call to this file")
	flag.Parse()

	opts := mcpserver.Options{ExitOnCrash: true}
	if *tools != "" {
		opts.Tools = strings.Split(*tools, ",")
	}
	if *logPath != "" {
		// O_APPEND: a restarted process adds to the same log, so a test sees both.
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		opts.Log = f
	}
	if *httpAddr == "" {
		return mcpserver.New(opts).Run(context.Background(), &mcp.StdioTransport{})
	}
	return serveHTTP(*httpAddr, opts, os.Stdout)
}

// serveHTTP prints the URL once listening, so a test that asked for port 0 learns the port.
func serveHTTP(addr string, opts mcpserver.Options, out io.Writer) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "listening on http://%s\n", l.Addr())
	return http.Serve(l, mcpserver.Handler(opts))
}
