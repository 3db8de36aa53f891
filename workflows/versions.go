package workflows

// Change ids of workflow.GetVersion: each names a behaviour change that
// running workflows must not see mid-run. Keep them, and the old branch,
// while a supported release's runs may still need it; retire them when
// no supported release does (docs/deploying.md, "Release line").
const (
	// versionRepairValues: argument repair uses the newest rules (numbers
	// as people write them, booleans from on/off and 0/1, a list written
	// as text split on its separator and never wrapped whole); before,
	// repair.RulesFirst. Asked only when the two rule sets answer a call
	// differently, so runs they repair alike record no marker.
	versionRepairValues = "repair-values"
	// versionHandoff: an agent that can hand over does (the handoff tool,
	// the handoff message, the ladder's handoff rung, its rules), and an
	// agent of kind human waits for a person instead of calling a model
	// (before: the tool was not offered, the message was refused, the rung
	// skipped, and a human agent ran as a model agent). Asked only for
	// agents with handoffs or of kind human, or for a handoff signal.
	versionHandoff = "handoff"
	// versionWorkerBreaker: a call the worker's shared breaker refused
	// (activities.CircuitOpenError) opens the run's breaker of the tool
	// and counts as a persistent error (before: one failure among others).
	// Asked only for such a refusal.
	versionWorkerBreaker = "worker-breaker"
	// versionExploreCycle: the explore rung leaves a graph loop's cycle by
	// an edge off any node of the cycle, the least visited target first
	// (policies.OffCycleExit); before, only an edge off the node where the
	// loop was seen, so a loop seen at A or B of the seed graph
	// A -> B -> C -> A, whose way out is C -> D, could not be explored and
	// the ladder climbed past explore. Asked only when the two rules
	// answer differently for a loop.
	versionExploreCycle = "explore-cycle"
	// versionGraphProgress: in a graph, progress off the last loop (which
	// sends the ladder back to its bottom rung) is a success at a node
	// outside the loop's cycle (policies.ResetsInGraph); before, any
	// success whose signature the cycle did not hold, so in the seed graph
	// every success of B, the walk still going round A -> B -> C -> A,
	// sent the ladder back to retry and explore was rarely reached. Asked
	// only when the two rules answer differently for an event.
	versionGraphProgress = "graph-progress"
	// versionRungsByClass: the loop's error class picks the rung
	// (policies.RungHelps): persistent, fatal and invalid_args failures
	// skip retry, as does a transient failure Temporal has just retried;
	// fatal failures skip substitute unless the fallback names another
	// provider; explore skips a free-form loop on a tool that is down when
	// the model has no other tool; a loop of invalid arguments is repaired
	// first (policies.RungRepair). Before: every available rung was taken
	// in ladder order. Asked only at a loop where the two rules choose
	// differently, so runs whose choices do not change record no marker.
	versionRungsByClass = "rungs-by-class"
	// versionStableSignatures: the loop event of a graph llm node whose
	// reply asked for calls is signed by the calls' tools and canonical
	// arguments without volatile fields (before: by the calls' JSON, ids
	// included, so no two visits were alike and an llm node that looped
	// was never seen). Asked at such a visit, once its calls have run.
	versionStableSignatures = "stable-signatures"
	// versionTimeWindow: policies.loop.time_window reports a loop when one
	// node is visited that often within that time (before: there was no
	// time window). Asked only when a window fills.
	versionTimeWindow = "time-window"
	// versionStateHash: coming back to a State (its canonical hash, after
	// the step) with nothing new, `repeats` times, is a state loop
	// (before: events had no state, and state loops were never seen).
	// Asked only when an event would complete a state loop.
	versionStateHash = "state-hash"
	// versionHandingOver: an edit or handoff signal that arrives while a
	// handoff is carried out is recorded and ignored (before: it was taken,
	// then dropped with the run that continued as new, or carried out after
	// a handoff no agent took). Asked only for such a signal. The updates
	// are refused by their validators, which replay never runs.
	versionHandingOver = "handing-over"
	// versionAnswerPending: an edit or handoff update accepted and not
	// carried out when the run closes or continues as new (a person's
	// reply took the run first, in the same workflow task) is answered
	// with the reason (before: its handler waited for ever, and the run
	// for it). Asked only when such an update waits.
	versionAnswerPending = "answer-pending"
	// versionWholeArguments: arguments sent as a JSON string holding an
	// object, or as lenient JSON (single quotes, comments, trailing
	// commas, Python literals), are read by repair.RepairText, and
	// arguments wrapped in one extra object are unwrapped (before: the
	// call failed, or the wrapped arguments went to the model). Asked
	// only when such a rule acts.
	versionWholeArguments = "whole-arguments"
	// versionRelativeDates: a date written relative to the run's day
	// ("tomorrow", "in 3 days", "next Friday" where certain) is resolved
	// against workflow.Now (before: it went to the model). Asked only
	// when the rule acts.
	versionRelativeDates = "relative-dates"
	// versionStreamCalls: an agent with stream_calls starts each call the
	// model finished writing while the reply still streams (the model
	// activity sends it to the run); before, calls started when the reply
	// ended. Asked only for agents with stream_calls.
	versionStreamCalls = "stream-calls"
	// versionToolQueues: a call of a tool with max_concurrent or rate
	// goes to the tool's own task queue (config.ToolTaskQueue), where the
	// worker's per-tool worker applies the limits, and its attempts are
	// not bounded by a schedule-to-close timeout (waiting there is not a
	// failure); before, the limits did not exist. Asked only for calls of
	// a limited tool.
	versionToolQueues = "tool-queues"
	// versionQueueWait: a tool call's attempts have no schedule-to-close
	// timeout, so a call waiting in the task queue for a busy worker's
	// free slot is not timed out unsent (the retry policy bounds the
	// attempts); before, the bound counted the wait. Asked for every
	// call of a tool that is not limited (a limited one never had it).
	versionQueueWait = "tool-queue-wait"
	// versionModelHeartbeat: a whole-reply model request (the step's or
	// a repair's) has a heartbeat timeout (model.HeartbeatTimeout) and the
	// activity heartbeats while it waits, so a worker that dies during it
	// is found out in seconds, not the model's whole timeout; before,
	// only streamed requests heartbeated. Asked for each such request.
	versionModelHeartbeat = "model-heartbeat"
	// versionExploreRegion: in a graph, loops over overlapping nodes are
	// one struggle (policies.Struggle): a success between them is not
	// progress, so the ladder climbs on, and it goes back to its bottom
	// rung only at real progress (a node not visited before, reached
	// after explore) or at a loop sharing no node with the struggle's;
	// explore prefers an exit whose target is outside every loop of the
	// struggle (policies.OffRegionExit), and the walk then keeps away
	// from them until real progress (policies.AwayEdge). Before: a
	// success at a node outside the last loop's cycle reset the ladder,
	// and after explore the walk took each node's first edge, often
	// straight back into the loop. Release 2 takes it as made (release.go); for a run of release 1 it is asked on its
	// own, only where the two rules decide otherwise.
	versionExploreRegion = "explore-region"
	// versionHandoffFlat: the context of a handoff of a run handed over
	// before does not nest the earlier handoff's context in its
	// conversation (flatConversation: the earlier message's brief and a
	// reference instead); before, each handoff node carried every
	// earlier context again. Release 2 takes it as made (release.go); for a run of release 1 it is asked on its own, at
	// a handoff of a run handed over before.
	versionHandoffFlat = "handoff-flat"
	// versionHandoffRefusals: a handoff's refusals that share one reason
	// name the first few agents (handoff.maxRefusalsPerReason) and count the rest
	// (policies.CompactRefusals); before, each agent of the registry was
	// listed, at every handoff. Release 2 takes it as made (release.go); for a run of release 1 it is asked on its own,
	// only when refusals are folded.
	versionHandoffRefusals = "handoff-refusals"
	// versionHandoffLoads: a handoff reads the load of the agents the
	// choice may weigh only (policies.NeedsLoad); before, of every agent
	// of the registry (the ReadRegistry activity's input). The choice is
	// the same. Release 2 takes it as made (release.go); for a run of release 1 it is asked on its own, when the lists
	// differ.
	versionHandoffLoads = "handoff-loads"
	// versionArchiveTrace: a run whose trace weighs over archiveAbove
	// carries only its newest part (and the nodes it reads again) into
	// the next generation; the rest stays in the generation that held it
	// (archive.go). Before, the whole trace was carried until a payload
	// limit stopped the run. Release 2 takes it as made (release.go); for a run of release 1 it is asked on its own, at a
	// continue-as-new that archives; a fork names a run id (from.run_id)
	// only in this version.
	versionArchiveTrace = "archive-trace"
	// versionWaitingContinue: a run waiting only for people (calls held
	// for approval, a person agent's reply) continues as new when Temporal
	// suggests it, and the next generation waits for the same calls and
	// node, with the decisions and reply already accepted and the same
	// deadline (package waiting); before, continue-as-new came only
	// between steps, and a flood of signals to a waiting run grew its
	// history until the server terminated it. Release 2 takes it as made (release.go); for a run of release 1 it is
	// asked on its own, only when Temporal suggests it during such a wait.
	versionWaitingContinue = "waiting-continue"
	// versionBoundedLists: a run keeps its latest policies.KeepRecent loops
	// and escalations and counts the older ones (Run.LoopsDropped,
	// EscalationsDropped, DroppedRungs; status and the result say how many
	// are not listed); before, both lists grew by one per loop for the
	// life of the run, carried into every generation. Release 2 takes it as made (release.go); for
	// a run of release 1 it is asked on its own, when a list first outgrows the
	// bound.
	versionBoundedLists = "bounded-lists"
	// versionContextClear: an agent with policies.context sends its
	// requests with a prompt budget in tokens, and a prompt counted over it
	// comes back unsent: the results of tool calls before the last
	// keep_last steps are cleared from the conversation and the request
	// is asked again (model/context.go). Release 2 takes it as made (release.go); for a run of release 1 it is asked once per
	// run, at its first request, only for agents with policies.context.
	versionContextClear = "context-clear"
	// versionModelFallback: a model request that failed once its retries
	// were spent goes to the agent's next fallback model (model.fallbacks;
	// policies.NextModel), with a trace node saying why; before, the run
	// stopped. Release 2 takes it as made (release.go); for a run of release 1 it is asked on its own, only when a
	// fallback would be taken.
	versionModelFallback = "model-fallback"
	// versionLongerReply: a reply cut off (finish_reason length) in the
	// middle of a call's arguments is asked again once, with the model's
	// max_output_tokens (model/longer.go); before, its broken call went
	// to the pipeline and the model was told. Release 2 takes it as made (release.go); for a run of release 1 it is
	// asked on its own, only for such a reply.
	versionLongerReply = "longer-reply"
	// versionNoAnswerLoop: a reply that answers nothing (empty, filtered,
	// a refusal) is a failure the loop detector counts, and no longer an
	// output refused by the schema, which stopped the run after
	// repair.max_attempts of them (no_answer.go). Release 2 takes it as made (release.go); for a run of release 1 it is
	// asked on its own, only for such a reply.
	versionNoAnswerLoop = "no-answer-loop"
	// versionCutOffRepair: a reply cut off in a call's arguments that the
	// repair pipeline's rules read whole (repair.RepairText) goes to the
	// pipeline instead of being asked again (model/longer.go). Release 2 takes it as made (release.go); for
	// a run of release 1 it is asked only when the two rules answer differently.
	versionCutOffRepair = "cut-off-repair"
	// versionBudget: a run whose agent has policies.budget takes the
	// budget rung before a model request or tool call that would cross a
	// limit (workflows/budget). Release 2 takes it as made (release.go); for a run of release 1 it is asked only by runs with a
	// budget.
	versionBudget = "budget"
	// versionBudgetReplyBound: a budgeted run with an output_tokens or
	// cost limit sends each request with the reply bound its budget
	// counted (max_completion_tokens), shrunk to what the budget has left
	// (policies.ReplyRoom). Release 2 takes it as made (release.go); for a run of release 1 it is asked only when the bound
	// would shrink (the model's own bound is sent to every such run: a
	// request's input only, not a command).
	versionBudgetReplyBound = "budget-reply-bound"
	// versionBudgetWait: a budget rung's wait ends for an edit or a
	// person's handoff, keeps its deadline and its node across
	// continue-as-new while waiting, takes only a raise of the crossed
	// limit, and leaves the phase awaiting_approval when calls still wait
	// (workflows/budget). Release 2 takes it as made (release.go); for a run of release 1 it is asked only at a human budget rung.
	versionBudgetWait = "budget-wait"
	// versionLocalTools: a call of a tool that runs local
	// (config.Tool.RunsLocal: built-ins that read, tools marked local) is
	// a local activity, which goes on as a normal activity past
	// config.LocalToolBound (localToolFuture). Release 2 takes it as made (release.go); for a run of release 1 it is asked
	// only for such a call.
	versionLocalTools = "local-tools"
	// versionRepairSpend: the focused repair request is a model request
	// the run's spend counts (activities.RepairRequest.WithUsage: the
	// activity answers its tokens with the arguments) and, in a run with
	// a budget, is asked only within it (before: it was neither counted
	// nor checked, and the activity answered the arguments alone). Release 2 takes it as made (release.go); for
	// a run of release 1 it is asked on its own, at a run's first model repair.
	versionRepairSpend = "repair-spend"
	// versionSummaryAfterRaise: a summary not asked for the run's budget
	// is not taken as made: the request keeps its prompt budget, so it
	// takes the budget rung and, once a person raised the budget, comes
	// back over its prompt budget and is summarized (before: the request
	// was marked summarized and sent whole, unsummarized, after the
	// raise). Release 2 takes it as made (release.go); for a run of release 1 it is asked on its own, only when a summary
	// is not asked for the budget.
	versionSummaryAfterRaise = "summary-after-raise"
	// versionForkArchivedSpend: a fork of a long run counts what the
	// nodes of its source's archived part cost (Archive.Spent and
	// SpentAfter, kept when archiving); before, only the nodes the
	// source still carried. Release 2 takes it as made (release.go); for a run of release 1 it is asked on its own, only
	// by a fork whose source's archive has a spend.
	versionForkArchivedSpend = "fork-archived-spend"
	// versionGraphWaits: a graph run waiting only for people (at a human
	// node, with a tool node's or an llm node's calls held for approval,
	// at the budget rung of an llm node's request) continues as new when
	// Temporal suggests it, and the next generation waits at the same
	// graph node for the same things, as versionWaitingContinue does for
	// free-form runs (step_end.go); before, a graph run continued as new
	// only between visits. Release 2 takes it as made (release.go); for a run of release 1 it is asked on its own, only
	// when Temporal suggests it during such a wait.
	versionGraphWaits = "graph-waits"
	// versionGraphNoAnswer: an llm node whose reply answers nothing
	// (policies.AnswersNothing) is visited again, the model told so and
	// the loop detector counting it, as a free-form step asks again
	// (no_answer.go); before, the visit ended ok with the empty content.
	// Release 2 takes it as made (release.go); for a run of release 1 it is asked on its own, only for such a reply.
	versionGraphNoAnswer = "graph-no-answer"
	// versionCancelFirst: a free-form step that ends with the run
	// cancelled and an edit waiting ends cancelled, as a graph visit did
	// (step_end.go); before, it ended for the edit. Release 2 takes it as made (release.go); for
	// a run of release 1 it is asked on its own, only when both happen.
	versionCancelFirst = "cancel-first"
	// versionRungWaits: the ladder's human rung continues as new while it
	// waits when Temporal suggests it, in both run shapes, and the next
	// generation waits at the same human node for the same loop
	// (rung_human.go); before, the rung's wait went on. Release 2 takes it as made (release.go); for
	// a run of release 1 it is asked on its own, only when Temporal suggests it
	// during such a wait.
	versionRungWaits = "rung-waits"
	// versionFallbackCooldown: a run stays with a fallback model for the
	// model's fallback_cooldown (model/fallback.go); before, for the
	// agent's tool breaker cooldown. Release 2 takes it as made (release.go); for a run of release 1 it is asked on its
	// own, only on a fallback when the two differ.
	versionFallbackCooldown = "fallback-cooldown"
	// versionForkArchived: a fork {workflow_id, node_id} of a node in the
	// archived part of a long run reads the closed generation that holds
	// it (fork.go, holderOf); before, it was refused with the run id to
	// give. Release 2 takes it as made (release.go); for a run of release 1 it is asked on its own, only for such a fork.
	versionForkArchived = "fork-archived"
	// versionLocalResolve: a new run resolves its agent in a local
	// activity, in its first workflow task (before: a normal activity,
	// which cost every run one more activity task and workflow task).
	// Release 2 takes it as made.
	versionLocalResolve = "local-resolve"
	// versionPhaseShown: the run's phase is not upserted when its search
	// attributes already show it (phase.go); before, every phase change
	// was upserted, the first one too when the starter had set it.
	// Release 2 takes it as made.
	versionPhaseShown = "phase-shown"
	// versionCutInLedger: in a conversation whose message cut a model
	// request short (double_text interrupt), a write the model asks for
	// again, as the turn already made it before the message, is answered
	// by the effect ledger with its recorded result (chat.Conversation.CutInWrite); before,
	// it ran again. Asked only when such a write is found.
	versionCutInLedger = "cut-in-ledger"
	// versionTurnEdit: an edit or a fork of a node of a conversation's
	// earlier turn makes that turn the one under way (its message, the
	// step it began at: chat.Conversation.Edited), and a fork leaves its source's
	// waiting messages and wait behind; before, the run kept the later
	// turn the edit invalidated (a message cutting the turn short rolled
	// back to the invalidated message and the ledger missed the turn's
	// writes), and a fork of a conversation waiting for its next message
	// waited at its source's wait, without answering the edited turn.
	// Asked only when the two differ.
	versionTurnEdit = "turn-edit"
	// versionCheckedCalls: a call of a tool with result_schema or verify
	// that succeeded is checked (pipeline.check) and, failing, settles
	// unverified; before, it settled as the tool answered. Asked only for
	// such a call.
	versionCheckedCalls = "checked-calls"
	// versionNoOpWrites: a write that answers a repeat of itself exactly
	// as its previous try did is no progress to the loop detector
	// (outcome no_op, repeatsItself); before, it was a success like any other.
	// Asked only for such a write.
	versionNoOpWrites = "no-op-writes"
	// versionTurnLoops: a conversation's turn (a new message taken) starts
	// the loop escape afresh (ladder/turn.go): loops are a property of one
	// turn's work, and a turn that ended with an answer is progress;
	// before, the detector saw every step of the whole run, so a person
	// repeating a request was taken for a loop. Asked only when a turn
	// begins with loop state to forget.
	versionTurnLoops = "turn-loops"
	// versionExprNumbers: a check's condition (verify, a read-back's
	// expect) reads numbers as numbers (policies.VerifyEnv), and every
	// condition evaluated in workflow code, edges' when too, has a cost
	// bound (config.CompileVerify, policies.RunCondition); before,
	// result.total > 0 was an error and result.total == 2 false, and a
	// loop in a loop over a long result ran on past the workflow task's
	// deadline. Asked only when the two evaluations differ, or the
	// bounded one went over its bound (conditions.go).
	versionExprNumbers = "expr-numbers"
	// versionReadBackUnknown: a read-back that could not read (its tool
	// failed once its retries were spent, or its breaker is open) holds
	// the checked call as outcome_unknown, charging the read tool's
	// breaker and not the call's tool's, and a write held so is not run
	// again while a read-back cannot tell (pipeline.unknown); a read-back
	// that reads counts as a success of its tool. Before: the call was
	// unverified, its tool's breaker charged, and the write ran again.
	// Asked only when a read-back fails to read, its tool's breaker is
	// open, or a read-back reads while its tool's breaker counts failures.
	versionReadBackUnknown = "read-back-unknown"
	// versionLedgerLatest: the effect ledger answers a write asked for
	// again with an invalidated call of it only if that call is the
	// latest that ran it or answered for it (ledger.ExecutedWrite); before, with
	// the latest invalidated one, even after a standing call had answered
	// for it, so a later turn's new booking got an old one back. Asked
	// only when the two answer differently.
	versionLedgerLatest = "ledger-latest"
	// versionBoundedAudit: a signal whose "by" or "reason" is over its
	// bound (signals.CheckAudit) is recorded and ignored, as its update is
	// refused; before, it was taken, and a message's "by" of up to the
	// payload's size was carried in the trace for good. Asked only for
	// such a signal.
	versionBoundedAudit = "bounded-audit"
	// versionTurnArchive: the messages of a conversation's turns that
	// have ended are no longer pinned in the trace: archiving moves them,
	// with the rest of their turn, to the generation that holds them
	// (archive.go); a message stays while a node of its turn stays.
	// Before, every message was carried for good, until the carried state
	// was over what continue-as-new carries and the run stopped. Asked
	// only at a continue-as-new whose archive the change alters.
	versionTurnArchive = "turn-archive"
	// versionResumedTurnEdit: an edit (or a person's handoff) that comes
	// while a conversation waits for its next message, in a generation it
	// continued as new into while it waited, is carried out as in any
	// other wait (resumedEdit); before, the run failed with "interrupted
	// by an edit". Asked only for such an edit.
	versionResumedTurnEdit = "resumed-turn-edit"
	// versionPanicStop: a panic in workflow code (the main coroutine, a
	// coroutine it started, an update handler, the start) stops the run
	// with a report saying where (guard.go); before, it failed the
	// workflow task, which Temporal retried for ever. Asked only when a
	// panic is caught: no recorded history holds one.
	versionPanicStop = "panic-stop"
	// versionDecodeStop: a value the run recorded (a model reply, a
	// person's reply, a handoff context) that does not decode as what
	// the run reads stops the run with a report naming the node
	// (recorded.go); before, it was read as empty. Asked only when such a
	// value fails to decode.
	versionDecodeStop = "decode-stop"
	// versionOutageWait: a call whose tool is down (every breaker on its
	// way open, the worker's breaker refusing it, or a transient failure
	// that leaves the breaker open) waits the outage out on a durable
	// timer, in phase waiting_outage, and is routed again when the
	// breaker lets a trial through, for at most outage.max_wait
	// (pipeline.park); before, it failed as circuit_open (or as its
	// failure) at once and fed the loop detector. Asked only when a call
	// would wait.
	versionOutageWait = "outage-wait"
	// versionModelOutage: a model request whose model and every fallback
	// are down waits the outage out on a durable timer, in phase
	// waiting_outage, and is asked again of the agent's own model when
	// the model's breaker would let a trial through, for at most the
	// model's outage.max_wait (model_outage.go). Before, the request
	// failed once its retries were spent and the run stopped. Asked only
	// when a request fails so.
	versionModelOutage = "model-outage"
	// versionOutageContinue: a run waiting out an outage, and for nothing
	// else, continues as new when Temporal suggests it (a flood of
	// signals), and a call waiting out its tool's outage when the run
	// continues as new is carried as a call held for approval is: the
	// next generation routes it again (outage.go). Before, the run went
	// on waiting in the same generation, and a parked call held up a
	// switch begun by another wait until its tool answered. Asked when
	// such a switch would begin, or find a parked call.
	versionOutageContinue = "outage-continue"
	// versionOutagePhase: a run going back to running (a person's wait
	// ended, say) while one of its calls still waits out an outage shows
	// waiting_outage. Before, it showed running until that call was
	// back. Asked only then.
	versionOutagePhase = "outage-phase"
	// versionOneSettle: every step ends through the engine's settle, in
	// one order, in both shapes: a free-form reply without calls (its
	// content as the output, or no answer) waits for what ends the run
	// first (a stop, an edit, a cancellation, a switch), and an edit that
	// came while a rung answered a loop is carried out before the rung's
	// outcome in a free-form run as in a graph. Before, a reply without
	// calls gave its output (or fed the loop detector) first, and a
	// free-form rung's outcome came before the edit. Asked only when the
	// orders differ: an edit, a cancellation or a switch is there.
	versionOneSettle = "one-settle"
	// versionApprovalWhen: a call of a tool with approval: {when} waits
	// for a person only when its condition holds over the call's args and
	// the run's state and input, or cannot be evaluated (pipeline.asks);
	// before, such a tool's calls ran at once, as any tool's whose
	// approval was not always. Asked only for calls of a tool with when.
	versionApprovalWhen = "approval-when"
	// versionNotify: a wait for a person (an approval, a human node, the
	// ladder's human rung, a person agent) tells the run's webhooks
	// (notify:) when it begins, passes half its timeout and times out,
	// in activities the run does not wait for, and a run that closes
	// waits for the notices it sent (notify.go). The wait's timer is
	// split at its half. Asked only by a run that has webhooks.
	versionNotify = "notify"
	// versionApprovalDeadline: a call whose tool's approval has its own
	// timeout (approval: {timeout, then}) waits that long instead of the
	// agent's human_timeout, on a timer split at its half, where it is
	// counted (unstuck_approvals_past_half) and shown overdue; its
	// deadline then approves, rejects or asks the next group
	// (person/deadline.go). Before, such a tool was refused at load.
	// Asked only for calls of such a tool.
	versionApprovalDeadline = "approval-deadline"
	// versionPeople: a call of a tool whose approval names approvers: N
	// > 1 (by: groups) runs once N distinct people of its groups approved
	// it, each approval an approval node naming its person
	// (person/decision.go); before, the first approval settled it. Asked
	// only for an approval of such a call (a run's spec could not name
	// by: before, so no recorded run asks it).
	versionPeople = "people"
	// versionInboxMemo: a run waiting for approval lists its calls waiting
	// in its memo (signals.MemoWaiting), upserted when they change, so the
	// inbox reads a fleet in one visibility listing (phase.go).
	// Asked only when a run's calls waiting change.
	versionInboxMemo = "inbox-memo"
	// versionHumanPeople: a graph's human node or the ladder's human rung
	// whose approval block (config/human_approval.go) has a when asks only
	// when it holds, one naming by: takes only signed replies of its
	// groups, one with a timeout waits that long and then goes on,
	// rejects or escalates (person/reply_ask.go), showing its deadline.
	// Asked only for such a wait
	// (a run's spec could not carry the block before, so no recorded run
	// asks it).
	versionHumanPeople = "human-people"
	// versionInterruptedApprovals: an edit that interrupts a call's wait
	// for approval while it had approvals short of its approvers: N
	// records each, an approval node naming its person
	// (person/approval.go); before, they were dropped unrecorded. Asked
	// only then.
	versionInterruptedApprovals = "interrupted-approvals"
	// versionUpdatesWait: an update that comes while the run starts
	// (reply, approve, edit, handoff, budget, message) waits in its
	// handler until the run has its state, for at most startWait, then
	// is checked and taken; one whose run then fails to start answers
	// that failure, and the run closes once such updates have answered
	// (messages_wait.go). Before, all but message were refused at once,
	// and a message waited without bound. Asked only by an update that
	// waits, and by a start that failed while one did.
	versionUpdatesWait = "updates-wait"
	// versionRelease is asked once, when a run starts (withRelease): a
	// run that answers a release takes every change releaseChanges lists
	// for it and the releases before as made, at the version listed, and
	// asks none of them (versionOf). Each change id asked adds a marker
	// and a TemporalChangeVersion upsert (a visibility write) to the run:
	// six to eight of each in a plain run before release 1, one or two
	// with release 1. A later change of behaviour gets its own id,
	// checked with versionOf and not listed in releaseChanges, so runs of
	// releases 1 and 2 ask it on its own (release_test.go keeps each
	// release's list fixed).
	versionRelease = "unstuck-release"
)
