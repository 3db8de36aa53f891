# unstuck — durable AI agents on Temporal that do not get stuck.
#   make demo   run the demo agent end to end on a local dev server (Ctrl-C stops it)
#   make demo-edit   a person corrects an agent's thought mid-run and the run resumes from there
#   make demo-handoff   a customer-service chain hands a customer on, agent to agent, down to a person
#   make demo-chat   chat with a conversation agent in the terminal (no model key needed)
#   make test   every test layer: lint, unit, workflow, replay, real server, browser, cluster
#   make check  the inner loop: lint, unit, workflow and replay tests (no server)
#   make test-cluster   the integration tests that depend on the server, on a real Temporal cluster on PostgreSQL
#   make bench  benchmarks (not part of make test)
# Only Go is needed: the pinned Temporal CLI and server, workflowcheck, staticcheck and gotestsum are built
# once per machine into a cache keyed by version ($(TOOLS)); the console's browser tests use headless
# Chromium and the cluster tests PostgreSQL, each found or (as root, with apt-get) installed.

SHELL := /bin/bash
GO    ?= go
BIN   := $(CURDIR)/bin

TEMPORAL_CLI_VERSION  := v1.5.1
WORKFLOWCHECK_VERSION := v0.6.0
# staticcheck 2026.2.2, the newest release on the module proxy; it needs Go >= 1.26.
# Pinned (not @latest) so a new release with new checks cannot fail make test unannounced.
STATICCHECK_VERSION   := v0.8.2
# Runs go test -json, prints it readably and keeps the JSON for the report.
GOTESTSUM_VERSION     := v1.13.0

# The tools are built once per machine, not per clone: each into a
# directory of the cache named by its version (and, for the analysers,
# which read Go source, by the Go that built them), whole or not at all.
TOOLS      ?= $(or $(UNSTUCK_TOOLS),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/unstuck/tools)
GO_VERSION := $(shell $(GO) env GOVERSION)
TEMPORAL      := $(TOOLS)/temporal-cli-$(TEMPORAL_CLI_VERSION)/temporal
WORKFLOWCHECK := $(TOOLS)/workflowcheck-$(WORKFLOWCHECK_VERSION)-$(GO_VERSION)/workflowcheck
STATICCHECK   := $(TOOLS)/staticcheck-$(STATICCHECK_VERSION)-$(GO_VERSION)/staticcheck
GOTESTSUM     := $(TOOLS)/gotestsum-$(GOTESTSUM_VERSION)/gotestsum

# go-install DIR, PACKAGES: go install into a fresh directory, then move it
# to DIR in one step, so a build that stops half-way leaves nothing that
# looks installed, and two builds at once do no harm.
go-install = mkdir -p $(TOOLS) && tmp=$$(mktemp -d $(TOOLS)/.building-XXXXXX) && \
	GOBIN=$$tmp $(GO) install $(2) && { mv -T $$tmp $(1) 2>/dev/null || rm -rf $$tmp; }

# The last released commit, whose worker the upgrade test runs.
RELEASED_COMMIT := 93ddf9d
RELEASED_WORKER := $(TOOLS)/unstuck-worker-$(RELEASED_COMMIT)-$(GO_VERSION)/unstuck-worker

.PHONY: all build demo demo-edit demo-handoff demo-chat test check test-lint test-check test-server test-browser test-cluster-part test-cluster cluster-tools postgres lint fmt-check vet workflowcheck staticcheck bench histories clean clean-tools tools help chromium

all: build

help:
	@sed -n '1,13p' Makefile

$(TEMPORAL):
	@echo ">> building Temporal CLI $(TEMPORAL_CLI_VERSION) into $(@D) (once per machine; a cold build takes a few minutes)"
	@$(call go-install,$(@D),github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_CLI_VERSION))

$(WORKFLOWCHECK):
	@echo ">> building workflowcheck $(WORKFLOWCHECK_VERSION) into $(@D)"
	@$(call go-install,$(@D),go.temporal.io/sdk/contrib/tools/workflowcheck@$(WORKFLOWCHECK_VERSION))

$(STATICCHECK):
	@echo ">> building staticcheck $(STATICCHECK_VERSION) into $(@D)"
	@$(call go-install,$(@D),honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION))

$(GOTESTSUM):
	@echo ">> building gotestsum $(GOTESTSUM_VERSION) into $(@D)"
	@$(call go-install,$(@D),gotest.tools/gotestsum@$(GOTESTSUM_VERSION))

# bin/temporal, where the docs and the demo look for the CLI.
$(BIN)/temporal: $(TEMPORAL)
	@mkdir -p $(BIN) && ln -sfn $(TEMPORAL) $@

# The console's browser tests (testsuite/browser_test.go) drive headless
# Chromium. This step finds it (UNSTUCK_CHROMIUM, else chromium,
# chromium-browser or google-chrome on PATH) or, as root with apt-get,
# installs Debian's chromium package; the path it settles on is in
# $(CHROMIUM_PATH) ("" when there is none: the browser tests then skip,
# saying so). A Chromium already there costs a PATH look-up.
CHROMIUM_PATH := $(BIN)/.chromium-path
# apt-get waits for another install (make test's run at once) to let go of dpkg's lock.
APT_INSTALL   := apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends
CHROMIUM_APT  := $(APT_INSTALL) chromium

chromium:
	@mkdir -p $(BIN)
	@if [ -n "$$UNSTUCK_CHROMIUM" ]; then \
		if ! path=$$(command -v "$$UNSTUCK_CHROMIUM"); then \
			echo "UNSTUCK_CHROMIUM=$$UNSTUCK_CHROMIUM is not an executable Chromium: fix it, or unset it to look on PATH" >&2; exit 1; \
		fi; \
	else \
		path=$$(command -v chromium || command -v chromium-browser || command -v google-chrome || true); \
	fi; \
	why="needs root and apt-get"; \
	if [ -z "$$path" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		why="installing it failed"; \
		echo ">> no Chromium on PATH: installing Debian's chromium package for the browser tests ($(CHROMIUM_APT))"; \
		export DEBIAN_FRONTEND=noninteractive; \
		if ! out=$$($(CHROMIUM_APT) 2>&1); then \
			echo "$$out" | tail -n 3; \
			if echo "$$out" | grep -qE 'Unable to locate package|has no installation candidate|Failed to fetch'; then \
				echo ">> the package lists are missing or stale: apt-get update, then installing again"; \
				apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null && $(CHROMIUM_APT) >/dev/null 2>&1; \
			fi; \
		fi; \
		path=$$(command -v chromium || true); \
	fi; \
	if [ -n "$$path" ]; then echo ">> browser tests use $$path"; \
	else echo ">> no Chromium found and none could be installed ($$why): the browser tests will be skipped"; fi; \
	echo "$$path" > $(CHROMIUM_PATH)

tools: $(TEMPORAL) $(BIN)/temporal $(WORKFLOWCHECK) $(STATICCHECK) $(GOTESTSUM)

# The real cluster (app/cluster): the Temporal server release that
# docker-compose.yml deploys -- its auto-setup image's tag is the one
# place the version is written -- built with go install, with the SQL tool,
# the release's PostgreSQL schemas and the config template the image
# renders copied beside it; bin/cluster-v<version> points at it.
CLUSTER_VERSION := $(shell sed -n 's|^[[:space:]]*image:[[:space:]]*["'"'"']\{0,1\}temporalio/auto-setup:\([0-9A-Za-z.+-]*\).*|\1|p' docker-compose.yml)
CLUSTER_DIR     := $(TOOLS)/temporal-server-$(CLUSTER_VERSION)
CLUSTER_STAMP   := $(CLUSTER_DIR)/.installed

$(CLUSTER_STAMP):
	@test -n "$(CLUSTER_VERSION)" || { echo "docker-compose.yml names no temporalio/auto-setup image: the cluster's version comes from it" >&2; exit 1; }
	@echo ">> building Temporal server $(CLUSTER_VERSION) and its SQL tool into $(CLUSTER_DIR) (once per machine; a cold build takes a few minutes)"
	@mkdir -p $(TOOLS) && tmp=$$(mktemp -d $(TOOLS)/.building-XXXXXX) && \
	GOBIN=$$tmp $(GO) install go.temporal.io/server/cmd/server@v$(CLUSTER_VERSION) go.temporal.io/server/cmd/tools/sql@v$(CLUSTER_VERSION) && \
	src="$$($(GO) mod download -json go.temporal.io/server@v$(CLUSTER_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p')" && \
	{ test -d "$$src/schema/postgresql" || { echo "no schemas in the server module ($$src)" >&2; exit 1; }; } && \
	mkdir -p $$tmp/schema && cp -r "$$src/schema/postgresql" $$tmp/schema/ && cp "$$src/docker/config_template.yaml" $$tmp/ && \
	chmod -R u+w $$tmp && touch $$tmp/.installed && { mv -T $$tmp $(CLUSTER_DIR) 2>/dev/null || rm -rf $$tmp; }

$(BIN)/cluster-v$(CLUSTER_VERSION): $(CLUSTER_STAMP)
	@mkdir -p $(BIN) && rm -rf $@ && ln -sfn $(CLUSTER_DIR) $@

cluster-tools: $(BIN)/cluster-v$(CLUSTER_VERSION)

# PostgreSQL's server programs, from Debian's postgresql package: found
# (UNSTUCK_POSTGRES_BIN, pg_ctl on PATH, /usr/lib/postgresql/*/bin) or, as
# root with apt-get, installed. The tests start a PostgreSQL of their own
# from them (or use UNSTUCK_CLUSTER_POSTGRES=host:port). $(POSTGRES_OK)
# says whether there is one ("yes"); without one, make test skips its
# cluster part, saying so, and make test-cluster fails.
POSTGRES_OK  := $(BIN)/.postgres-ok
POSTGRES_APT := $(APT_INSTALL) postgresql

# After chromium: two apt-get runs at once would fight over dpkg's locks.
postgres: | chromium
	@mkdir -p $(BIN)
	@has() { [ -n "$$UNSTUCK_CLUSTER_POSTGRES" ] || [ -n "$$UNSTUCK_POSTGRES_BIN" ] || command -v pg_ctl >/dev/null || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; }; \
	if ! has && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo ">> no PostgreSQL: installing Debian's postgresql package for the cluster tests ($(POSTGRES_APT))"; \
		export DEBIAN_FRONTEND=noninteractive; \
		$(POSTGRES_APT) >/dev/null 2>&1 || { apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null && $(POSTGRES_APT) >/dev/null; }; \
	fi; \
	if has; then echo yes > $(POSTGRES_OK); \
	else echo no > $(POSTGRES_OK); echo ">> no PostgreSQL and none could be installed (needs root and apt-get): install Debian's postgresql package, or set UNSTUCK_POSTGRES_BIN; the cluster tests need it"; fi

# The worker's default build id for Worker Versioning (--deployment-name):
# this checkout's `git describe`, stamped at link time. A build of a tree
# with changes gets the time too, so two such builds never share an id
# (a pinned run must only ever meet the code that started it).
BUILD_ID := $(shell git describe --always --dirty=-dirty-$$(date -u +%Y%m%d%H%M%S) 2>/dev/null)

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/unstuck ./starter
	$(GO) build -ldflags "-X github.com/unstuck-dev/unstuck/app.stampedBuildID=$(BUILD_ID)" -o $(BIN)/unstuck-worker ./worker

demo: $(BIN)/temporal build
	$(BIN)/unstuck demo --temporal $(BIN)/temporal --worker $(BIN)/unstuck-worker

demo-edit: $(BIN)/temporal build
	$(BIN)/unstuck demo edit --temporal $(BIN)/temporal --worker $(BIN)/unstuck-worker

demo-handoff: $(BIN)/temporal build
	$(BIN)/unstuck demo handoff --temporal $(BIN)/temporal --worker $(BIN)/unstuck-worker

demo-chat: $(BIN)/temporal build
	$(BIN)/unstuck demo chat --temporal $(BIN)/temporal --worker $(BIN)/unstuck-worker

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bin/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

workflowcheck: $(WORKFLOWCHECK)
	$(WORKFLOWCHECK) -config workflowcheck.config.yaml ./...

# Bugs, dead code and misuse that go vet does not look for (checks: staticcheck.conf
# if present, else staticcheck's defaults).
staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

lint: fmt-check vet workflowcheck staticcheck

# The layers (docs/testing.md). Each go test layer keeps its JSON in
# $(RESULTS), which the report reads: each layer's wall time, the slowest
# tests, and how many ran, which may not fall below TEST_FLOOR (raise it
# when tests are added; a lower count means a test was dropped).
RESULTS      := $(CURDIR)/artifacts/test
TEST_FLOOR   := 5350
TEST_TIMEOUT ?= 30m
# The real-server tests wait on timers and the server far more than they
# use the CPU: this many run at once (go test's default is GOMAXPROCS).
TEST_PARALLEL ?= 8
# What needs no server: unit, workflow and replay tests.
CHECK_PKGS   = $(shell $(GO) list ./... | grep -v -e '/testsuite$$' -e '/unstuck/load$$')
# What runs on the dev server (the browser tests among them).
SERVER_PKGS  := ./testsuite ./load
SERVER_ENV   = UNSTUCK_TEMPORAL_BIN=$(TEMPORAL) UNSTUCK_RELEASED_WORKER=$(RELEASED_WORKER) UNSTUCK_CHROMIUM=$$(cat $(CHROMIUM_PATH))

# Every layer, the slow ones side by side: lint, the unit, workflow and
# replay tests, the real-server tests (the console in headless Chromium
# among them; screenshots in artifacts/screenshots) and the cluster's part
# (CLUSTER_PART, on a real cluster as make test-cluster runs the whole of
# it; skipped, loudly, without PostgreSQL). The tools each layer needs are
# built while the layers that do not need them run; a layer that fails
# does not stop the others (-k). Then the report.
test:
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@start=$$(date +%s); $(MAKE) --no-print-directory -j4 -k test-lint test-check test-server test-cluster-part; code=$$?; \
	$(GO) run ./internal/testreport -floor $(TEST_FLOOR) -out $(RESULTS)/report.txt -span lint=$(RESULTS)/lint.span \
		-json $(RESULTS)/check.json -json $(RESULTS)/server.json -json cluster=$(RESULTS)/cluster.json || code=1; \
	echo ">> make test took $$(( $$(date +%s) - start ))s; the report and each layer's go test -json are in $(RESULTS)"; \
	[ $$code = 0 ] || echo ">> make test FAILED (see above)"; exit $$code

# The inner loop: lint, then the tests that need no server, in a couple of
# minutes. go test's cache skips a package whose code and inputs did not
# change (make check CHECK_FLAGS=-count=1 runs them all).
CHECK_FLAGS ?=
check: $(GOTESTSUM)
	@mkdir -p $(RESULTS)
	@$(MAKE) --no-print-directory -j2 test-lint test-check 'TEST_COUNT=$(CHECK_FLAGS)'

test-lint: $(WORKFLOWCHECK) $(STATICCHECK)
	@mkdir -p $(RESULTS) && start=$$(date +%s.%N); \
	$(MAKE) --no-print-directory lint; code=$$?; echo "$$start $$(date +%s.%N)" > $(RESULTS)/lint.span; \
	[ $$code = 0 ] && echo ">> lint passed"; exit $$code

TEST_COUNT ?= -count=1
test-check: $(GOTESTSUM)
	@mkdir -p $(RESULTS)
	@echo ">> unit, workflow and replay tests"
	@$(GOTESTSUM) --hide-summary=skipped --format pkgname --jsonfile $(RESULTS)/check.json -- $(TEST_COUNT) -timeout $(TEST_TIMEOUT) $(CHECK_PKGS)

test-server: $(GOTESTSUM) $(TEMPORAL) $(BIN)/temporal build $(RELEASED_WORKER) chromium
	@mkdir -p $(RESULTS)
	@echo ">> the real-server tests (dev server, worker, browser), $(TEST_PARALLEL) at once"
	@$(SERVER_ENV) $(GOTESTSUM) --hide-summary=skipped --format testname --jsonfile $(RESULTS)/server.json -- \
		-count=1 -parallel $(TEST_PARALLEL) -timeout $(TEST_TIMEOUT) $(SERVER_PKGS)

# One layer on its own: the browser tests.
test-browser: $(GOTESTSUM) $(TEMPORAL) $(BIN)/temporal $(RELEASED_WORKER) chromium
	@$(SERVER_ENV) $(GOTESTSUM) --hide-summary=skipped --format testname -- -count=1 -run '^TestBrowser' ./testsuite

test-cluster-part: $(GOTESTSUM) $(TEMPORAL) $(BIN)/temporal $(RELEASED_WORKER) chromium $(BIN)/cluster-v$(CLUSTER_VERSION) postgres
	@mkdir -p $(RESULTS)
	@if [ "$$(cat $(POSTGRES_OK))" != yes ]; then echo ">> SKIPPED: the cluster's part of make test (no PostgreSQL; see above)"; exit 0; fi; \
	echo ">> the cluster's part, on Temporal $(CLUSTER_VERSION) on PostgreSQL: $(CLUSTER_PART)"; \
	$(CLUSTER_ENV) $(GOTESTSUM) --hide-summary=skipped --format testname --jsonfile $(RESULTS)/cluster.json -- \
		-count=1 -parallel $(TEST_PARALLEL) -timeout 15m -run '^($(CLUSTER_PART))$$' ./testsuite 2>&1 | sed -u 's/^/[cluster] /'; \
	exit $${PIPESTATUS[0]}

# The integration tests that depend on the server, on a real cluster
# (app/cluster: Temporal on PostgreSQL as docker-compose.yml deploys
# it, started and stopped by the tests): search attributes on a new
# namespace and visibility queries, the handoff registry's counts, the
# console, a worker SIGKILL, a release upgrade and Worker Versioning,
# load, and the cluster's own bad input. UNSTUCK_CLUSTER_POSTGRES=host:port
# runs them on a PostgreSQL already running instead of one of their own.
CLUSTER_ENV   = UNSTUCK_CLUSTER=$(CLUSTER_DIR) $(SERVER_ENV)
CLUSTER_PART  = TestLoadOnANewNamespaceRunsThrough|TestSearchAttributesOfANewNamespaceBecomeUsable|TestHandoffChainStaysSmall|TestWorkerKilledDuringWriteCompletesWithOneEffect|TestCluster.*
CLUSTER_TESTS = $(CLUSTER_PART)|TestTemporalCLIDrivesARunOnTheWorkerBinary|TestUnstuckCLIRunStatusTrace|TestTravelAgentCompletesEndToEnd|TestWebUIMetadata|TestReadRegistryCountsAnAgentsRuns|TestHandoffRefusesAnAgentOverCapacity|TestCustomerServiceChainHandsOverToAPerson|TestPersonHandsARunToANamedAgent|TestLadderHandoffRungHandsALoopOver|TestConsoleApprovesARun|TestBrowserConsoleApprovesCalls|TestBrowserConsoleHumanInboxReply|TestBrowserConsoleEditsALoopingRun|TestUnstuckReplyCommand|TestHumanNodeWaitsForAReply|TestWorkerKilledMidHandoffCompletesOnce|TestReleasedRunUpgradedMidRun|TestWorkerVersioningPinsRuns|TestWorkerBootstrapsItsDeployment|TestRunOfThisReleaseAsksOneVersion|TestWorkerServesTheAgentCountersForPrometheus|TestLongRunContinuesAsNewWithTheWholeRun
# Updates sent the moment after the start (a client, the Temporal CLI) and across continue-as-new (docs/messages.md).
CLUSTER_TESTS := $(CLUSTER_TESTS)|TestEachUpdateSentRightAfterTheStartIsTaken|TestTemporalCLIUpdateRightAfterStartIsTaken|TestAConversationTakesEveryMessageThroughItsSwitches

test-cluster: $(TEMPORAL) $(BIN)/temporal build $(RELEASED_WORKER) chromium $(BIN)/cluster-v$(CLUSTER_VERSION) postgres
	@test "$$(cat $(POSTGRES_OK))" = yes || { echo "make test-cluster needs PostgreSQL (see above)" >&2; exit 1; }
	@mkdir -p artifacts
	@echo ">> the cluster tests on Temporal $(CLUSTER_VERSION) on PostgreSQL; the whole output goes to artifacts/test-cluster.log"
	@$(CLUSTER_ENV) $(GO) test -count=1 -timeout 30m -v -run '^($(CLUSTER_TESTS))$$' ./testsuite 2>&1 | tee artifacts/test-cluster.log | \
		grep --line-buffered -E '^(--- |ok|FAIL|PASS|panic)|^cluster:'; \
	code=$${PIPESTATUS[0]}; [ $$code = 0 ] || echo ">> failed: what each failing test said is in artifacts/test-cluster.log"; exit $$code

# The worker of the last release, built from git history, so the upgrade
# test (testsuite/upgrade_test.go) can start a run with it and hand it to
# this worker mid-run. Needs the repository's history (a clone, not an
# archive); without it the test says so and is skipped.
$(RELEASED_WORKER):
	@if git cat-file -e $(RELEASED_COMMIT)^{commit} 2>/dev/null; then \
		echo ">> building the released worker ($(RELEASED_COMMIT)) for the upgrade test into $(@D) (once per machine)"; \
		mkdir -p $(TOOLS) && src=$$(mktemp -d) && tmp=$$(mktemp -d $(TOOLS)/.building-XXXXXX) && \
		git archive $(RELEASED_COMMIT) | tar -x -C $$src && (cd $$src && $(GO) build -o $$tmp/unstuck-worker ./worker) && \
		rm -rf $$src && { mv -T $$tmp $(@D) 2>/dev/null || rm -rf $$tmp; }; \
	else echo ">> no git history: the upgrade test will be skipped"; fi

# Record the histories of integration scenarios that have none yet
# (RUN=TestName picks the scenarios) into testsuite/histories/<release>
# (app/replay.Recording); commit them.
# A history already recorded is never overwritten: it is how runs started by
# an earlier version keep replaying.
histories: $(TEMPORAL)
	UNSTUCK_RECORD_HISTORIES=1 UNSTUCK_TEMPORAL_BIN=$(TEMPORAL) $(GO) test -count=1 -run '$(or $(RUN),.)' ./testsuite

# End-to-end ratios on the real dev server (each variant side by side in one
# run), then the policy micro-benchmarks. Figures go to bench/RESULTS.md.
bench: $(TEMPORAL) build
	UNSTUCK_TEMPORAL_BIN=$(TEMPORAL) $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 180m ./bench
	$(GO) test -run '^$$' -bench . -benchmem ./policies/... ./refs
	@echo ">> the seed graph over 200 seeds (test environment, each rule side by side)"
	$(GO) test -run '^$$' -bench SeedGraph -benchtime 1x ./workflows 2>&1 | grep -E 'ladder|graph|^(ok|FAIL)'
	@echo ">> figures measured by tests: loop detector false positives and delay, repair corpus shares (corpus 1 per mistake, corpus 2 per category)"
	$(GO) test -count=1 -v -run 'TestLoopDetectorFalsePositives|TestLoopDetectorDetectionDelay|TestCorpusRepairShare|TestCorpusRepairByMistake|TestCorpus2RepairShare' ./policies/... | grep -E '^\s+\S+_test.go:[0-9]+:|^(ok|FAIL)'

clean:
	rm -rf $(BIN) .data artifacts

# The tools' cache is the machine's, shared by every clone.
clean-tools:
	rm -rf $(TOOLS)
