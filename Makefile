# Marquee: the two commands a new machine needs are `make demo` and `make test`.
SWIFT ?= swift
DEMO_MEDIA := Pipelines/demo-media

# Debian 12 packages Marquee builds and tests with. ffmpeg brings ffprobe,
# the independent oracle the tests read our output with; fonts-dejavu-core the
# font the dark-variant tests draw their banners' text with (ffmpeg drawtext).
PACKAGES := pkg-config libavformat-dev libavcodec-dev libavfilter-dev \
  libswscale-dev libswresample-dev libavutil-dev libwebp-dev liblcms2-dev \
  libheif-dev libjpeg62-turbo-dev libavif-dev ffmpeg nginx curl fonts-dejavu-core

# What `make test-serving` adds: real clients (headless Chromium; GStreamer's
# playbin, with gstreamer1.0-libav for H.264 and AAC) and a one-node Slurm
# with munge, which the tests start and stop themselves.
SERVING_PACKAGES := chromium gstreamer1.0-tools gstreamer1.0-plugins-good \
  gstreamer1.0-plugins-bad gstreamer1.0-libav slurmctld slurmd slurm-client munge

.PHONY: demo test build setup clean fuzz fuzz-smoke fuzz-build setup-serving test-serving

# Installs the packages that are missing (apt-get only runs when one is).
setup:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "setup: installing$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

build: setup
	$(SWIFT) build -c release

# Release (README: "Release binary and container image"): a binary with the
# Swift runtime and Foundation linked statically, packed with RUNTIME-PACKAGES,
# the Debian packages it needs at run time (derived from what it links;
# `make dist` fails when the tracked file drifts, `make runtime-packages`
# rewrites it). dist-test runs it in a debootstrap'd Debian 12 minbase chroot.
DIST := dist/marquee-linux-x86_64.tar.gz
.PHONY: dist dist-setup dist-test runtime-packages version

# Marquee's version (`make -s version`), for image tags and labels.
version:
	@sed -n 's/.*marqueeVersion = "\(.*\)"/\1/p' Sources/MarqueeKit/Store/ItemFingerprint.swift

# The build packages without the test-only tools, plus readelf and strip.
dist-setup:
	@$(MAKE) --no-print-directory setup PACKAGES="$(filter-out ffmpeg nginx,$(PACKAGES)) binutils"

dist: dist-setup
	$(SWIFT) build -c release --static-swift-stdlib --product marquee
	@mkdir -p dist
	Packaging/dist.sh .build/release/marquee $(DIST)

runtime-packages: dist-setup
	$(SWIFT) build -c release --static-swift-stdlib --product marquee
	Packaging/runtime-packages.sh .build/release/marquee > RUNTIME-PACKAGES.tmp
	mv RUNTIME-PACKAGES.tmp RUNTIME-PACKAGES

dist-test: dist
	@$(MAKE) --no-print-directory setup PACKAGES=debootstrap
	Packaging/dist-test.sh $(DIST)

# Builds Marquee, generates the demo's sources with libavfilter's test
# sources, builds Pipelines/demo.json into Output/demo and lists the bundle.
demo: build
	.build/release/marquee demo-sources $(DEMO_MEDIA)
	.build/release/marquee build Pipelines/demo.json
	@echo
	@echo "Bundle Output/demo:"
	@find Output/demo -type f | sort | sed 's/^/  /'

test: setup
	$(SWIFT) test

setup-serving:
	@$(MAKE) --no-print-directory setup PACKAGES="$(SERVING_PACKAGES)"

# The serving checks: GStreamer and Chromium play a bundle served by nginx,
# and deploy/slurm/ runs on a one-node Slurm cluster.
test-serving: setup setup-serving
	MARQUEE_SERVING_TESTS=1 $(SWIFT) test --no-parallel --filter 'ServingClientTests|SlurmTests'

clean:
	rm -rf .build .build-fuzz Output/demo $(DEMO_MEDIA) dist

# libFuzzer targets with AddressSanitizer (Fuzz/README.md): `make fuzz` runs
# each for FUZZ_SECONDS, `make fuzz-smoke` for 30 s (CI). Seeds are generated
# into .build-fuzz/seeds, findings kept in .build-fuzz/findings/<target>/;
# a crash, leak or timeout fails the run.
FUZZ_SECONDS ?= 300
# FUZZ_RUNS=N: stop each target after N inputs (FUZZ_SECONDS still caps it).
FUZZ_RUNS ?=
FUZZ_TARGETS := FuzzJobReader FuzzImageHeaders FuzzPlaylists FuzzManifest
FUZZ_BUILD := .build-fuzz

# `make fuzz` builds optimised (the targets run 10-30 times faster), the CI
# smoke run in debug (it builds several times faster); -enable-testing lets
# the targets reach the internal readers (@testable import).
FUZZ_CONFIG ?= release
fuzz-build: setup
	@for t in $(FUZZ_TARGETS); do \
	  MARQUEE_FUZZ=1 $(SWIFT) build -c $(FUZZ_CONFIG) --scratch-path $(FUZZ_BUILD) --product $$t \
	    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing || exit 1; \
	done

fuzz: fuzz-build
	@Fuzz/seeds.sh $(FUZZ_BUILD)/seeds
	@status=0; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/findings/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  case $$t in FuzzImageHeaders) len=65536;; FuzzManifest) len=8192;; *) len=4096;; esac; \
	  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 \
	  $(FUZZ_BUILD)/$(FUZZ_CONFIG)/$$t $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/seeds/$$t \
	    -max_total_time=$(FUZZ_SECONDS) $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS)) -max_len=$$len -timeout=20 -rss_limit_mb=3072 \
	    -artifact_prefix=$(FUZZ_BUILD)/findings/$$t/ -print_final_stats=1 \
	    >$(FUZZ_BUILD)/findings/$$t/log.txt 2>&1 || status=1; \
	  grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb):' $(FUZZ_BUILD)/findings/$$t/log.txt \
	    | sed "s/^/  $$t /"; \
	  grep -E 'ERROR: |SUMMARY: ' $(FUZZ_BUILD)/findings/$$t/log.txt | head -3 | sed "s/^/  $$t /"; \
	done; exit $$status

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=30 FUZZ_CONFIG=debug
