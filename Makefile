# AdStitch — see README.md. `make test` and `make run` work on a fresh Debian machine.
SWIFT ?= swift

.PHONY: all deps hlsjs build lint format test run bench bench-guards bench-guards-update bench-http bench-catalogue fuzz soak clean

all: build

deps:
	@scripts/install-deps.sh

# hls.js for the real-client tests, extracted from a pinned PyPI wheel into .build-hlsjs/ (not committed).
hlsjs:
	@scripts/hlsjs.py

build: deps
	$(SWIFT) build

# Build once with tests, then run without rebuilding (keeps CI fast); then schemathesis against
# a live server and docs/openapi.yaml (no 5xx, every status, content type and body documented).
FORMATTED = Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources Benchmarks/Package.swift Benchmarks/Benchmarks Benchmarks/Tools

test: deps lint hlsjs
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) scripts/swift-test.sh
	scripts/schemathesis.sh
	$(MAKE) bench-guards

# The code follows .swift-format (hummingbird's: 4 spaces, lines up to 150); `make format` applies it.
lint:
	$(SWIFT) format lint --strict --recursive $(FORMATTED)

format:
	$(SWIFT) format format --in-place --recursive $(FORMATTED)

# Builds and serves the bundled demo campaigns on 127.0.0.1:8080 (prints the URLs to open),
# with the live demo's channel (scripts/live-origin.py) on 127.0.0.1:8081 for Campaigns/live-news.yaml
# and a test ad decision server (scripts/test-ad-server.py) on 127.0.0.1:8082 for Campaigns/ad-server-news.yaml.
run: deps hlsjs
	$(SWIFT) build --product adstitch
	python3 scripts/live-origin.py --port 8081 --window 10 --first-break 6 --break-every 20 --break-length 5 & origin=$$!; \
	python3 scripts/test-ad-server.py --port 8082 --media-base http://127.0.0.1:8080/v1/campaigns/ad-server-news/media/evening-news/media/ads & ads=$$!; \
	python3 scripts/test-origin.py Campaigns 8083 & titles=$$!; \
	trap 'kill $$origin $$ads $$titles 2>/dev/null' EXIT INT TERM; \
	$$($(SWIFT) build --show-bin-path)/adstitch serve --campaigns Campaigns --host 127.0.0.1 --port 8080 --preview --hls-js .build-hlsjs/hls.js

# Benchmarks live in their own package (package-benchmark) under Benchmarks/.
bench: deps
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark --skip "guard-.*"

# The allocation guards (docs/performance.md "Guards"): the allocations per render of the
# stitched, interstitial, live and master renders and of a session file's answer, against the
# counts stored in Benchmarks/Thresholds/ (a release build; exit 2: more allocations, 4: fewer,
# each past a tolerance of 2 — both fail, so the stored count is always the best one). `make bench-guards-update` records
# the counts of this tree when a change is meant to move them; commit the files it writes.
bench-guards: deps
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark thresholds check --target StitchingBenchmarks \
		--filter "guard-.*" --no-progress

bench-guards-update: deps
	cd Benchmarks && $(SWIFT) package --disable-sandbox --allow-writing-to-package-directory benchmark thresholds update \
		--target StitchingBenchmarks --filter "guard-.*" --no-progress

# wrk against a token-scoped playlist of a two-hour campaign, beside nginx serving the same
# bytes (release build; BENCH_SECONDS per run, default 15), then beacon redirects beside the
# stitched load, then the catalogue load below. Figures go in docs/performance.md.
BENCH_SECONDS ?= 15
bench-http: deps
	scripts/bench-http.sh $(BENCH_SECONDS)
	scripts/bench-beacons.sh $(BENCH_SECONDS)
	scripts/bench-catalogue.sh

# A catalogue of TITLES two-hour titles (default 10,000) on an nginx origin: cold and warm session
# starts, one fetch per title, RSS against cache.memory_mib. Figures go in docs/performance.md.
bench-catalogue: deps
	scripts/bench-catalogue.sh

# libFuzzer over the playlist parser and over the campaign pipeline (load, plan, render);
# RUNS=N executions of each (default 1,000,000). Figures in docs/reliability.md.
RUNS ?= 1000000
fuzz: deps
	scripts/fuzz.sh $(RUNS)

# wrk at 64 connections for SOAK_SECONDS on stitched and cached loads, plus 2,000 idle
# connections: 0 non-2xx answers, RSS flat. Figures in docs/reliability.md.
SOAK_SECONDS ?= 60
soak: deps
	scripts/soak.sh $(SOAK_SECONDS)

clean:
	$(SWIFT) package clean
