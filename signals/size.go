package signals

import (
	"encoding/json"
	"fmt"

	"github.com/unstuck-dev/unstuck/config"
)

// CheckSize refuses a message whose payload is over config.MaxMessageBytes:
// a reply or a person's arguments that large would bloat the run's history
// and every request to the model.
func CheckSize(name string, payload any) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("%s: the payload cannot be encoded: %v", name, err)
	}
	return CheckRawSize(name, len(b))
}

// CheckRawSize is CheckSize for a payload already encoded, n bytes long.
func CheckRawSize(name string, n int) error {
	if n > config.MaxMessageBytes {
		return fmt.Errorf("%s: the payload is %d KiB, over the %d KiB a message may carry", name, n>>10, config.MaxMessageBytes>>10)
	}
	return nil
}
