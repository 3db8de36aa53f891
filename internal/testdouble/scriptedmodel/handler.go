package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// maxBody bounds a request body; conversations in tests are far smaller.
const maxBody = 32 << 20

// routes are the endpoints of the OpenAI API that the engine uses.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chatCompletions)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf(
			"%s %s is not served by the scripted model server (only POST /v1/chat/completions and GET /v1/models)",
			r.Method, r.URL.Path), "unknown_endpoint", 0)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(Header, "true") // on every answer, errors included
		mux.ServeHTTP(w, r)
	})
}

// chatCompletions answers POST /v1/chat/completions. Checks run in the order
// a provider would: a malformed body is refused before anything else; then
// queued outages, which hit every well-formed request; then the request's own
// problems; then the script.
func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "cannot read the request body: "+err.Error(), "invalid_body", 0)
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "the request body is not a valid chat-completions request: "+err.Error(), "invalid_json", 0)
		return
	}
	stream := askedStream(req)
	n, failure := s.record(body)
	if failure != nil {
		s.answer(w, r, n, req.Model, *failure, len(body), stream)
		return
	}
	if badMessage(w, req) || s.overWindow(w, req) {
		return
	}
	script := s.script(req.Model)
	if script == nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf(
			"The model `%s` does not exist on the scripted model server (a test double); known scripts: %s",
			req.Model, strings.Join(names(s.scripts), ", ")), "model_not_found", 0)
		return
	}
	turn, err := run(script, req)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), "script_panic", 0)
		return
	}
	if stream != nil && turn.NoStream {
		writeError(w, http.StatusBadRequest, "stream: streaming is not supported for this script of the scripted model server; send stream: false", "stream_not_supported", 0)
		return
	}
	s.answer(w, r, n, req.Model, turn, len(body), stream)
}

// run calls script, turning a panic into an error so that a broken script
// shows up as a clear 500 rather than a dropped connection.
func run(script Script, req openai.ChatCompletionRequest) (turn Turn, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("scripted model %q: script panicked: %v", req.Model, p)
		}
	}()
	return script(req), nil
}

// answer writes turn as the answer to request n, after its Delay: as
// Server-Sent Events when stream is set, else as one JSON completion.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, n int, model string, turn Turn, bodyLen int, stream *streamAsk) {
	if turn.Delay > 0 {
		t := time.NewTimer(turn.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return // the client gave up; nobody is left to answer
		}
	}
	if turn.Status != 0 {
		writeError(w, turn.Status, turn.Message, "", turn.RetryAfter)
		return
	}
	if stream != nil {
		s.stream(w, r, n, completion(n, model, turn, bodyLen), turn, stream.includeUsage)
		return
	}
	writeJSON(w, http.StatusOK, completion(n, model, turn, bodyLen))
}

// models answers GET /v1/models with the script names, so a client that
// checks the model exists before using it finds the scripts.
func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	list := struct {
		Object string         `json:"object"`
		Data   []openai.Model `json:"data"`
	}{Object: "list"}
	for _, n := range names(s.scripts) {
		list.Data = append(list.Data, openai.Model{ID: n, Object: "model", OwnedBy: Fingerprint, Root: n})
	}
	writeJSON(w, http.StatusOK, list)
}
