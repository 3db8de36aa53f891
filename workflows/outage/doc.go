// Package outage keeps a run's waits for a tool that is down: when the
// run began to wait out each tool (carried in the Run, so the bound
// counts across generations), and the calls parked now, for the run's
// phase and its status query. The rules (when to probe again, when the
// wait is over) are policies'; the wait itself, a durable timer on the
// call pipeline's selector, is the pipeline's (pipeline.park, workflows/call_stages.go).
package outage
