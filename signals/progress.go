package signals

// ModelActivity is the activity type of a run's model request; while its
// reply streams, its heartbeat details are a StreamProgress.
const ModelActivity = "CallModel"

// StreamProgress is the model activity's heartbeat detail while a reply
// streams: how far it got, for the UI and for a reader of a timed-out
// attempt, and the text so far, which is how a follower of the run reads
// a reply as it is written (internal/feed).
type StreamProgress struct {
	Chunks       int `json:"chunks"`
	ContentBytes int `json:"content_bytes"`
	Calls        int `json:"calls"`
	// Node is the request's node in the trace (empty: a run that does not
	// name it, whose text is not followed).
	Node string `json:"node,omitempty"`
	// Attempt is the activity attempt that wrote Text: the server keeps a
	// dead attempt's last details until the next attempt heartbeats.
	Attempt int32 `json:"attempt,omitempty"`
	// Text is the reply's content so far, its first MaxLiveText bytes
	// at most: a longer reply reaches a follower whole in its settled node.
	Text string `json:"text,omitempty"`
}

// MaxLiveText bounds the text a heartbeat carries, so a long reply does
// not send ever larger heartbeats.
const MaxLiveText = 64 << 10
