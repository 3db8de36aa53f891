package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTool registers the named tool. Tools whose arguments the SDK should check use the typed
// mcp.AddTool (the schema is inferred from the Go type and enforced by the SDK, the way
// most Go MCP servers are written); the others use Server.AddTool with a raw schema.
func addTool(s *mcp.Server, name string, opts Options) {
	switch name {
	case "echo":
		s.AddTool(&mcp.Tool{Name: name, Description: "Returns its arguments as structured content.",
			InputSchema: json.RawMessage(`{"type":"object"}`)}, echo)
	case "add":
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Adds two integers."}, add)
	case "fail":
		s.AddTool(&mcp.Tool{Name: name, Description: "Always fails (isError).",
			InputSchema: json.RawMessage(`{"type":"object"}`)}, fail)
	case "slow":
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Sleeps ms milliseconds."}, slow)
	case "crash":
		s.AddTool(&mcp.Tool{Name: name, Description: "Exits the server process (code 3) before answering.",
			InputSchema: json.RawMessage(`{"type":"object"}`)}, crash(opts.ExitOnCrash))
	case "bad_schema":
		// The $ref points nowhere: a client compiling this schema must fail. The SDK's
		// Server.AddTool only checks that a raw schema is an object of type "object", so the
		// broken schema reaches the wire as written.
		s.AddTool(&mcp.Tool{Name: name, Description: "Has an input schema with a dangling $ref.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}}}`)}, echo)
	case "text":
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Answers its text argument as text content."}, text)
	case "image":
		s.AddTool(&mcp.Tool{Name: name, Description: "Answers an image and a caption.",
			InputSchema: json.RawMessage(`{"type":"object"}`)}, image)
	}
}

func echo(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.Params.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	return &mcp.CallToolResult{
		StructuredContent: args,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(args)}},
	}, nil
}

type addIn struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

func add(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
	return nil, addOut{Sum: in.A + in.B}, nil
}

func fail(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: "the fail tool always fails: " + string(req.Params.Arguments)}},
	}, nil
}

type slowIn struct {
	Ms int `json:"ms" jsonschema:"how long to sleep, in milliseconds"`
}

type slowOut struct {
	SleptMs int `json:"slept_ms"`
}

func slow(ctx context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, slowOut, error) {
	select {
	case <-time.After(time.Duration(in.Ms) * time.Millisecond):
		return nil, slowOut{SleptMs: in.Ms}, nil
	case <-ctx.Done():
		return nil, slowOut{}, ctx.Err()
	}
}

func crash(exit bool) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !exit {
			return &mcp.CallToolResult{IsError: true,
				Content: []mcp.Content{&mcp.TextContent{Text: "crash only crashes a process"}}}, nil
		}
		fmt.Fprintln(os.Stderr, "unstuck-mcp-double: crash tool called, exiting with code 3")
		os.Exit(3)
		return nil, nil
	}
}

type textIn struct {
	Text string `json:"text" jsonschema:"the text to answer"`
	// Parts, when above 1, splits the answer into that many text items (to test joining).
	Parts int `json:"parts,omitempty"`
}

func text(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
	res := &mcp.CallToolResult{}
	parts := max(in.Parts, 1)
	size := (len(in.Text) + parts - 1) / parts
	for rest := in.Text; ; {
		n := min(size, len(rest))
		res.Content = append(res.Content, &mcp.TextContent{Text: rest[:n]})
		rest = rest[n:]
		if rest == "" || size == 0 {
			break
		}
	}
	return res, nil, nil
}

// pngSignature stands in for an image: only the bytes' passing through as JSON matters.
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

func image(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.ImageContent{Data: pngSignature, MIMEType: "image/png"},
		&mcp.TextContent{Text: "a picture"},
	}}, nil
}
