# unstuck — durable AI agents on Temporal that do not get stuck.
#   make demo   run the demo agent end to end on a local dev server (Ctrl-C stops it)
#   make demo-edit   a person corrects an agent's thought mid-run and the run resumes from there
#   make demo-handoff   a customer-service chain hands a customer on, agent to agent, down to a person
#   make test   every test layer: lint (vet, workflowcheck, staticcheck), unit, workflow, replay, integration
#   make test-cluster   the integration tests that depend on the server, on a real Temporal cluster on PostgreSQL
#   make bench  benchmarks (not part of make test)
# Only Go is needed: the pinned Temporal CLI and server, workflowcheck and staticcheck are installed into ./bin;
# the console's browser tests use headless Chromium and the cluster tests PostgreSQL, each found or (as root,
# with apt-get) installed.

SHELL := /bin/bash
GO    ?= go
BIN   := $(CURDIR)/bin

TEMPORAL_CLI_VERSION  := v1.5.1
WORKFLOWCHECK_VERSION := v0.6.0
# staticcheck 2026.2.2, the newest release on the module proxy; it needs Go >= 1.26.
# Pinned (not @latest) so a new release with new checks cannot fail make test unannounced.
STATICCHECK_VERSION   := v0.8.2
# A stamp per pinned version, so a version bump reinstalls.
TEMPORAL_STAMP      := $(BIN)/.temporal-$(TEMPORAL_CLI_VERSION)
WORKFLOWCHECK_STAMP := $(BIN)/.workflowcheck-$(WORKFLOWCHECK_VERSION)
STATICCHECK_STAMP   := $(BIN)/.staticcheck-$(STATICCHECK_VERSION)

TEST_TIMEOUT ?= 30m

# The last released commit, whose worker the upgrade test runs.
RELEASED_COMMIT := 93ddf9d
RELEASED_WORKER := $(BIN)/unstuck-worker-$(RELEASED_COMMIT)

.PHONY: all build demo demo-edit demo-handoff test test-cluster cluster-tools postgres lint fmt-check vet workflowcheck staticcheck bench histories clean tools help chromium

all: build

help:
	@sed -n '1,10p' Makefile

$(TEMPORAL_STAMP):
	@mkdir -p $(BIN)
	@echo ">> installing Temporal CLI $(TEMPORAL_CLI_VERSION) into ./bin (a cold build takes several minutes)"
	GOBIN=$(BIN) $(GO) install github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_CLI_VERSION)
	@touch $@

$(WORKFLOWCHECK_STAMP):
	@mkdir -p $(BIN)
	@echo ">> installing workflowcheck $(WORKFLOWCHECK_VERSION) into ./bin"
	GOBIN=$(BIN) $(GO) install go.temporal.io/sdk/contrib/tools/workflowcheck@$(WORKFLOWCHECK_VERSION)
	@touch $@

$(STATICCHECK_STAMP):
	@mkdir -p $(BIN)
	@echo ">> installing staticcheck $(STATICCHECK_VERSION) into ./bin"
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@touch $@

# The console's browser tests (testsuite/browser_test.go) drive headless
# Chromium. This step finds it (UNSTUCK_CHROMIUM, else chromium,
# chromium-browser or google-chrome on PATH) or, as root with apt-get,
# installs Debian's chromium package; the path it settles on is in
# $(CHROMIUM_PATH) ("" when there is none: the browser tests then skip,
# saying so). A Chromium already there costs a PATH look-up.
CHROMIUM_PATH := $(BIN)/.chromium-path
CHROMIUM_APT  := apt-get install -y --no-install-recommends chromium

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
				apt-get update -q >/dev/null && $(CHROMIUM_APT) >/dev/null 2>&1; \
			fi; \
		fi; \
		path=$$(command -v chromium || true); \
	fi; \
	if [ -n "$$path" ]; then echo ">> browser tests use $$path"; \
	else echo ">> no Chromium found and none could be installed ($$why): the browser tests will be skipped"; fi; \
	echo "$$path" > $(CHROMIUM_PATH)

tools: $(TEMPORAL_STAMP) $(WORKFLOWCHECK_STAMP) $(STATICCHECK_STAMP)

# The real cluster (internal/cluster): the Temporal server release that
# docker-compose.yml deploys -- its auto-setup image's tag is the one
# place the version is written -- built with go install, with the SQL tool,
# the release's PostgreSQL schemas and the config template the image
# renders copied beside it.
CLUSTER_VERSION := $(shell sed -n 's|^[[:space:]]*image:[[:space:]]*["'"'"']\{0,1\}temporalio/auto-setup:\([0-9A-Za-z.+-]*\).*|\1|p' docker-compose.yml)
CLUSTER_BIN     := $(BIN)/cluster-v$(CLUSTER_VERSION)
CLUSTER_STAMP   := $(CLUSTER_BIN)/.installed

$(CLUSTER_STAMP):
	@test -n "$(CLUSTER_VERSION)" || { echo "docker-compose.yml names no temporalio/auto-setup image: the cluster's version comes from it" >&2; exit 1; }
	@mkdir -p $(CLUSTER_BIN)
	@echo ">> installing Temporal server $(CLUSTER_VERSION) and its SQL tool into $(CLUSTER_BIN) (a cold build takes a few minutes)"
	GOBIN=$(CLUSTER_BIN) $(GO) install go.temporal.io/server/cmd/server@v$(CLUSTER_VERSION) go.temporal.io/server/cmd/tools/sql@v$(CLUSTER_VERSION)
	@src="$$($(GO) mod download -json go.temporal.io/server@v$(CLUSTER_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p')"; \
	test -d "$$src/schema/postgresql" || { echo "no schemas in the server module ($$src)" >&2; exit 1; }; \
	rm -rf $(CLUSTER_BIN)/schema && mkdir -p $(CLUSTER_BIN)/schema && \
	cp -r "$$src/schema/postgresql" $(CLUSTER_BIN)/schema/ && cp "$$src/docker/config_template.yaml" $(CLUSTER_BIN)/ && \
	chmod -R u+w $(CLUSTER_BIN)
	@touch $@

cluster-tools: $(CLUSTER_STAMP)

# PostgreSQL's server programs, from Debian's postgresql package: found
# (UNSTUCK_POSTGRES_BIN, pg_ctl on PATH, /usr/lib/postgresql/*/bin) or, as
# root with apt-get, installed. The tests start a PostgreSQL of their own
# from them (or use UNSTUCK_CLUSTER_POSTGRES=host:port). $(POSTGRES_OK)
# says whether there is one ("yes"); without one, make test skips its
# cluster part, saying so, and make test-cluster fails.
POSTGRES_OK  := $(BIN)/.postgres-ok
POSTGRES_APT := apt-get install -y --no-install-recommends postgresql

postgres:
	@mkdir -p $(BIN)
	@has() { [ -n "$$UNSTUCK_CLUSTER_POSTGRES" ] || [ -n "$$UNSTUCK_POSTGRES_BIN" ] || command -v pg_ctl >/dev/null || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; }; \
	if ! has && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo ">> no PostgreSQL: installing Debian's postgresql package for the cluster tests ($(POSTGRES_APT))"; \
		export DEBIAN_FRONTEND=noninteractive; \
		$(POSTGRES_APT) >/dev/null 2>&1 || { apt-get update -q >/dev/null && $(POSTGRES_APT) >/dev/null; }; \
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
	$(GO) build -ldflags "-X github.com/unstuck-dev/unstuck/internal/app.stampedBuildID=$(BUILD_ID)" -o $(BIN)/unstuck-worker ./worker

demo: $(TEMPORAL_STAMP) build
	$(BIN)/unstuck demo --temporal $(BIN)/temporal --worker $(BIN)/unstuck-worker

demo-edit: $(TEMPORAL_STAMP) build
	$(BIN)/unstuck demo edit --temporal $(BIN)/temporal --worker $(BIN)/unstuck-worker

demo-handoff: $(TEMPORAL_STAMP) build
	$(BIN)/unstuck demo handoff --temporal $(BIN)/temporal --worker $(BIN)/unstuck-worker

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bin/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

workflowcheck: $(WORKFLOWCHECK_STAMP)
	$(BIN)/workflowcheck -config workflowcheck.config.yaml ./...

# Bugs, dead code and misuse that go vet does not look for (checks: staticcheck.conf
# if present, else staticcheck's defaults).
staticcheck: $(STATICCHECK_STAMP)
	$(BIN)/staticcheck ./...

lint: fmt-check vet workflowcheck staticcheck

# Every layer: policies and config (table + fuzz seeds), workflow tests with
# Temporal's test suite, replay of testsuite/histories, integration tests
# against the real dev server started from ./bin/temporal, and the console
# in headless Chromium (screenshots in artifacts/screenshots).
# Then the cluster's part (CLUSTER_PART) on a real cluster, as make
# test-cluster runs the whole of it; skipped, loudly, without PostgreSQL.
test: lint $(TEMPORAL_STAMP) build $(RELEASED_WORKER) chromium $(CLUSTER_STAMP) postgres
	UNSTUCK_TEMPORAL_BIN=$(BIN)/temporal UNSTUCK_RELEASED_WORKER=$(RELEASED_WORKER) UNSTUCK_CHROMIUM=$$(cat $(CHROMIUM_PATH)) $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...
	@if [ "$$(cat $(POSTGRES_OK))" != yes ]; then echo ">> SKIPPED: the cluster's part of make test (no PostgreSQL; see above)"; exit 0; fi; \
	echo ">> the cluster's part, on Temporal $(CLUSTER_VERSION) on PostgreSQL: $(CLUSTER_PART)"; \
	$(CLUSTER_ENV) $(GO) test -count=1 -timeout 15m -run '^($(CLUSTER_PART))$$' ./testsuite

# The integration tests that depend on the server, on a real cluster
# (internal/cluster: Temporal on PostgreSQL as docker-compose.yml deploys
# it, started and stopped by the tests): search attributes on a new
# namespace and visibility queries, the handoff registry's counts, the
# console, a worker SIGKILL, a release upgrade and Worker Versioning,
# load, and the cluster's own bad input. UNSTUCK_CLUSTER_POSTGRES=host:port
# runs them on a PostgreSQL already running instead of one of their own.
CLUSTER_ENV   = UNSTUCK_CLUSTER=$(CLUSTER_BIN) UNSTUCK_TEMPORAL_BIN=$(BIN)/temporal UNSTUCK_RELEASED_WORKER=$(RELEASED_WORKER) UNSTUCK_CHROMIUM=$$(cat $(CHROMIUM_PATH))
CLUSTER_PART  = TestLoadOnANewNamespaceRunsThrough|TestSearchAttributesOfANewNamespaceBecomeUsable|TestHandoffChainStaysSmall|TestWorkerKilledDuringWriteCompletesWithOneEffect|TestCluster.*
CLUSTER_TESTS = $(CLUSTER_PART)|TestTemporalCLIDrivesARunOnTheWorkerBinary|TestUnstuckCLIRunStatusTrace|TestTravelAgentCompletesEndToEnd|TestWebUIMetadata|TestReadRegistryCountsAnAgentsRuns|TestHandoffRefusesAnAgentOverCapacity|TestCustomerServiceChainHandsOverToAPerson|TestPersonHandsARunToANamedAgent|TestLadderHandoffRungHandsALoopOver|TestConsoleApprovesARun|TestConsoleApprovesCalls|TestConsoleHumanInboxReply|TestConsoleEditsALoopingRun|TestUnstuckReplyCommand|TestHumanNodeWaitsForAReply|TestWorkerKilledMidHandoffCompletesOnce|TestReleasedRunUpgradedMidRun|TestWorkerVersioningPinsRuns|TestWorkerBootstrapsItsDeployment|TestRunOfThisReleaseAsksOneVersion|TestWorkerServesTheAgentCountersForPrometheus|TestLongRunContinuesAsNewWithTheWholeRun

test-cluster: $(TEMPORAL_STAMP) build $(RELEASED_WORKER) chromium $(CLUSTER_STAMP) postgres
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
	@mkdir -p $(BIN)
	@if git cat-file -e $(RELEASED_COMMIT)^{commit} 2>/dev/null; then \
		echo ">> building the released worker ($(RELEASED_COMMIT)) for the upgrade test"; \
		src=$$(mktemp -d) && git archive $(RELEASED_COMMIT) | tar -x -C $$src && \
		(cd $$src && $(GO) build -o $@ ./worker) && rm -rf $$src; \
	else echo ">> no git history: the upgrade test will be skipped"; fi

# Record the histories of integration scenarios that have none yet
# (RUN=TestName picks the scenarios) into testsuite/histories; commit them.
# A history already recorded is never overwritten: it is how runs started by
# an earlier version keep replaying.
histories: $(TEMPORAL_STAMP)
	UNSTUCK_RECORD_HISTORIES=1 UNSTUCK_TEMPORAL_BIN=$(BIN)/temporal $(GO) test -count=1 -run '$(or $(RUN),.)' ./testsuite

# End-to-end ratios on the real dev server (each variant side by side in one
# run), then the policy micro-benchmarks. Figures go to bench/RESULTS.md.
bench: $(TEMPORAL_STAMP) build
	UNSTUCK_TEMPORAL_BIN=$(BIN)/temporal $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 180m ./bench
	$(GO) test -run '^$$' -bench . -benchmem ./policies/... ./refs
	@echo ">> the seed graph over 200 seeds (test environment, each rule side by side)"
	$(GO) test -run '^$$' -bench SeedGraph -benchtime 1x ./workflows 2>&1 | grep -E 'ladder|graph|^(ok|FAIL)'
	@echo ">> figures measured by tests: loop detector false positives and delay, repair corpus shares (corpus 1 per mistake, corpus 2 per category)"
	$(GO) test -count=1 -v -run 'TestLoopDetectorFalsePositives|TestLoopDetectorDetectionDelay|TestCorpusRepairShare|TestCorpusRepairByMistake|TestCorpus2RepairShare' ./policies/... | grep -E '^\s+\S+_test.go:[0-9]+:|^(ok|FAIL)'

clean:
	rm -rf $(BIN) .data
