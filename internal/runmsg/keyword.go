package runmsg

import (
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// Keyword decodes a Keyword search attribute of a run as a listing gives
// it (AgentName, AgentPhase); a missing or unreadable one is "".
func Keyword(p *commonpb.Payload) string {
	if p == nil {
		return ""
	}
	var s string
	if converter.GetDefaultDataConverter().FromPayload(p, &s) != nil {
		return ""
	}
	return s
}
