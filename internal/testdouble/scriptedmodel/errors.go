package scriptedmodel

import (
	"math"
	"net/http"
	"strconv"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// writeError answers an OpenAI-style error body, {"error": {"message",
// "type", "code"}}, which go-openai decodes into *openai.APIError with the
// status, so the engine's error classification sees what a real provider
// would send.
func writeError(w http.ResponseWriter, status int, message, code string, retryAfter time.Duration) {
	if message == "" {
		message = http.StatusText(status) + " (scripted)"
	}
	if code == "" {
		code = errorCode(status)
	}
	if retryAfter > 0 {
		// Whole seconds, rounded up: Retry-After has no fractions, and
		// rounding down could tell a client to retry too early.
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(retryAfter.Seconds()))))
	}
	writeJSON(w, status, openai.ErrorResponse{Error: &openai.APIError{
		Message: message,
		Type:    errorType(status),
		Code:    code,
	}})
}

// errorType follows the "type" values OpenAI uses for each kind of status.
func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusTooManyRequests:
		return "requests"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

// errorCode is a default machine-readable code for a status.
func errorCode(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "invalid_api_key"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	}
	if status >= 500 {
		return "server_error"
	}
	return "invalid_request"
}
