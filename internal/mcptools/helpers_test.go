package mcptools

import "net/http"

// httpHandlerFunc reports each request's Authorization header, then serves it with next.
func httpHandlerFunc(saw func(auth string), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		saw(r.Header.Get("Authorization"))
		next.ServeHTTP(w, r)
	})
}
