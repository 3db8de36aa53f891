package replay

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The SDK reports a history that does not match the code (its error code
// TMPRL1100) only as text, its error types unexported: a sentence naming
// the event of the history and the command of the code by the SDK's
// description of them. Explain reads those sentences to name the event;
// whether a run replayed never depends on it (any error is a failure).
var (
	mismatchDiffers = regexp.MustCompile(`nondeterministic workflow: history event is (.+?), replay command is (.+)$`)
	mismatchMissing = regexp.MustCompile(`nondeterministic workflow: missing replay command for (.+)$`)
	mismatchExtra   = regexp.MustCompile(`nondeterministic workflow: extra replay command for (.+)$`)
	activityMissing = regexp.MustCompile(`lookup failed for scheduledEventID to activityID: scheduleEventID: (\d+)`)

	described = regexp.MustCompile(`^(\w+): \((.*)\)$`)
	namedAs   = regexp.MustCompile(`(?:ActivityType|WorkflowType):\(Name:([^)]*)\)|MarkerName:([^,)]+)|TimerId:([^,)]+)`)
	eventIDIs = regexp.MustCompile(`^\w+: \(EventId:(\d+),`)
	idOf      = regexp.MustCompile(`(ActivityId|TimerId|WorkflowId):([^,)]+)`)
	taskOf    = regexp.MustCompile(`WorkflowTaskCompletedEventId:(\d+)`)
)

// Explain says plainly why hist did not replay: for a non-determinism, the
// event of the history that differs (its id, type and name) and the
// command this build makes instead; for any other failure, the SDK's
// first line.
func Explain(err error, hist *historypb.History) string {
	msg := strings.TrimSpace(err.Error())
	if m := mismatchDiffers.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("non-determinism at %s: this build makes %s instead", eventAt(hist, m[1]), short(m[2]))
	}
	if m := mismatchMissing.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("non-determinism at %s: this build makes no command for it", eventAt(hist, m[1]))
	}
	if m := mismatchExtra.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("non-determinism: this build makes %s, which the history does not have", short(m[1]))
	}
	if m := activityMissing.FindStringSubmatch(msg); m != nil {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		if e := eventByID(hist, id); e != nil {
			return fmt.Sprintf("non-determinism at %s: this build schedules no such activity there", describe(e))
		}
	}
	first, _, _ := strings.Cut(msg, "\n")
	if len(first) > 400 {
		first = first[:400] + "…"
	}
	return first
}

// short is an SDK description of an event or a command cut to its kind
// and name: "ScheduleActivityTask: (ActivityId:16, ActivityType:(Name:CallModel), …)"
// is "ScheduleActivityTask CallModel".
func short(desc string) string {
	m := described.FindStringSubmatch(desc)
	if m == nil {
		return desc
	}
	if n := namedAs.FindStringSubmatch(m[2]); n != nil {
		return m[1] + " " + cmp.Or(n[1:]...)
	}
	return m[1]
}

// eventAt finds the event of hist the SDK described and describes it:
// by its id when the description has it, else the first event of its
// type with the same activity, timer or child id, written by the workflow
// task the description names.
func eventAt(hist *historypb.History, desc string) string {
	if m := eventIDIs.FindStringSubmatch(desc); m != nil {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		if e := eventByID(hist, id); e != nil {
			return describe(e)
		}
	}
	kind := desc
	if m := described.FindStringSubmatch(desc); m != nil {
		kind = m[1]
	}
	var task int64
	if m := taskOf.FindStringSubmatch(desc); m != nil {
		task, _ = strconv.ParseInt(m[1], 10, 64)
	}
	id := idOf.FindStringSubmatch(desc)
	for _, e := range hist.GetEvents() {
		if e.GetEventType().String() != kind || (task != 0 && attributeInt(e, "workflow_task_completed_event_id") != task) {
			continue
		}
		if id != nil && attributeString(e, sdkIDField[id[1]]) != id[2] {
			continue
		}
		return describe(e)
	}
	return short(desc)
}

// sdkIDField is the attribute field of each id the SDK's descriptions name.
var sdkIDField = map[string]protoreflect.Name{"ActivityId": "activity_id", "TimerId": "timer_id", "WorkflowId": "workflow_id"}

func eventByID(hist *historypb.History, id int64) *historypb.HistoryEvent {
	for _, e := range hist.GetEvents() {
		if e.GetEventId() == id {
			return e
		}
	}
	return nil
}

// describe names an event as an operator finds it in the Web UI: "event
// 16 (ActivityTaskScheduled CallModel)", a version marker with its change
// id ("event 5 (MarkerRecorded Version turn-edit)").
func describe(e *historypb.HistoryEvent) string {
	name := e.GetEventType().String()
	if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
		name += " " + a.GetActivityType().GetName()
	}
	if a := e.GetStartChildWorkflowExecutionInitiatedEventAttributes(); a != nil {
		name += " " + a.GetWorkflowType().GetName()
	}
	if a := e.GetTimerStartedEventAttributes(); a != nil {
		name += " timer " + a.GetTimerId()
	}
	if a := e.GetMarkerRecordedEventAttributes(); a != nil {
		name += " " + a.GetMarkerName()
		var change string
		if p := a.GetDetails()["change-id"].GetPayloads(); len(p) > 0 && json.Unmarshal(p[0].GetData(), &change) == nil {
			name += " " + change
		}
	}
	return fmt.Sprintf("event %d (%s)", e.GetEventId(), name)
}

func attributeInt(e *historypb.HistoryEvent, field protoreflect.Name) int64 {
	if v, ok := attribute(e, field); ok {
		return v.Int()
	}
	return 0
}

func attributeString(e *historypb.HistoryEvent, field protoreflect.Name) string {
	if v, ok := attribute(e, field); ok {
		return v.String()
	}
	return ""
}

// attribute reads one field of e's attributes, whichever event type e is.
func attribute(e *historypb.HistoryEvent, field protoreflect.Name) (protoreflect.Value, bool) {
	m := e.ProtoReflect()
	which := m.WhichOneof(m.Descriptor().Oneofs().ByName("attributes"))
	if which == nil || field == "" {
		return protoreflect.Value{}, false
	}
	attrs := m.Get(which).Message()
	fd := attrs.Descriptor().Fields().ByName(field)
	if fd == nil {
		return protoreflect.Value{}, false
	}
	return attrs.Get(fd), true
}
