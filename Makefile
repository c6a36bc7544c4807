# acbridge — see README.md. `make demo` and `make test` do all set-up on a
# fresh Debian 12 machine (as root or with sudo).

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
BIN       := bin/acbridge
# The simulated kiosk is a command of its own, never packaged
# (docs/architecture.md, "What ships is what runs").
DEMO_BIN  := bin/acbridge-demo
# The race detector roughly triples test time; CI's budget allows it.
RACE      ?= -race

export GOFLAGS := -mod=mod

.PHONY: all build demo test test-go deps vet fmt bench clean

all: build

deps:
	scripts/install-deps.sh test

build:
	scripts/install-deps.sh build
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/acbridge

demo: build
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(DEMO_BIN) ./cmd/acbridge-demo
	$(DEMO_BIN) run

vet:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# test installs what the tests need, checks the systemd unit, runs the
# WebRTC interop, runs every Go test beside a private pcscd with the vpcd
# virtual reader (no systemd; its own socket and vpcd port, so that neither
# `acbridge-demo` nor another test run can touch the suite's reader:
# scripts/pcscd.sh run) with services required (a missing service fails the
# run instead of skipping tests), fuzzes the NDEF parser for 20 s, and last
# the cross-built packages under emulation (test-cross, about 11 min warm,
# 6 of them the booted rollback and the release rings; a cold chroot and
# emulated toolchain add about 9 min), after the VM tiers (test-vm, about
# 6 min warm, the kiosk screen's Chromium under TCG the longest part; a cold
# kernel cache and system root add about 9 min). A whole
# warm run took 27 min on 2 cores.
test: deps vet
	scripts/vm/warm.sh
	scripts/check-unit.sh
	$(GO) build -o $(BIN) ./cmd/acbridge
	interop/run.sh $(BIN)
	scripts/pcscd.sh run env ACBRIDGE_REQUIRE_SERVICES=1 $(GO) test $(RACE) -count=1 -timeout 40m ./...
	$(GO) test -run '^$$' -fuzz FuzzNDEF -fuzztime 20s ./nfc/ndef/
	$(MAKE) --no-print-directory test-vm
	$(MAKE) --no-print-directory test-cross

bench:
	scripts/install-deps.sh bench
	scripts/pcscd.sh run $(GO) test -run '^$$' -bench . -benchtime 200x ./...

clean:
	rm -rf bin

# screenshots runs the kiosk page's browser tests (headless Chromium against
# the reference agent and the virtual reader) and keeps a screenshot of each
# state they pass through in $(SCREENSHOTS): every state of the page in every
# language at 800×480, 1024×600 and 1280×800 under states/<language>/, each
# checked for clipping, contrast and axe-core's WCAG 2.2 AA rules.
SCREENSHOTS ?= bin/screenshots
.PHONY: screenshots
screenshots:
	scripts/install-deps.sh test
	rm -rf $(SCREENSHOTS) && mkdir -p $(SCREENSHOTS)
	scripts/pcscd.sh run env ACBRIDGE_SCREENSHOTS=$(abspath $(SCREENSHOTS)) ACBRIDGE_REQUIRE_SERVICES=1 \
	  $(GO) test -count=1 -run '^TestBrowser' -v ./kiosk/
	@echo "kiosk screenshots: $(abspath $(SCREENSHOTS))"

# Cross-compiled binaries and Debian packages for Raspberry Pi OS and Debian 12
# (docs/raspberry-pi.md). scripts/cross.sh installs the cross compilers and the
# target libraries it needs; dist/ holds the results.
.PHONY: cross deb test-cross

cross:
	VERSION='$(VERSION)' COMMIT='$(COMMIT)' scripts/cross.sh

deb: cross
	VERSION='$(VERSION)' COMMIT='$(COMMIT)' scripts/deb.sh

# The release files in dist/release (docs/raspberry-pi.md, "Getting the
# software"): per architecture the .deb and a tarball of the binary with its
# licence files, and SHA256SUMS signed with REPO_KEY (the repository's key,
# as for make repo; without it a throwaway test key signs and a warning says
# so). scripts/test-dist.sh checks them (part of test-cross).
.PHONY: dist
dist: deb
	scripts/dist.sh

# Runs the arm binaries and package tests under qemu, lints the packages and
# installs the amd64 one in a Debian 12 chroot (as root).
test-cross: deb
	scripts/test-cross.sh

# interop: an independent WebRTC peer (Debian's python3-aiortc, installed
# if missing) completes the offer/answer, the public walkthrough and an
# explicit audio turn against `acbridge agent --transport webrtc` on
# loopback, in about 3 s.
.PHONY: interop
interop: build
	interop/run.sh $(BIN)

# A signed apt repository of the packages in dist/ and the apt-source package
# that makes kiosks trust it (docs/fleet.md): REPO_KEY names the signing key
# in the operator's gpg keyring, REPO_URL where kiosks fetch it from, CHANNEL
# the ring (stable, the default, or canary; docs/fleet.md).
.PHONY: repo
repo: deb
	scripts/repo.sh

# test-vm boots Debian 12's own kernel under QEMU (TCG, no KVM needed) with
# real kernel devices — a USB CCID reader fed by a card on the host, vivid,
# v4l2loopback fed MJPEG, snd-aloop, uinput, gpio-sim labelled as the Pi's
# header, a PN532 on an 8250 UART — and runs acbridge against them
# (docs/vm.md). The kernel, modules and the out-of-tree gpio-sim and
# v4l2loopback are cached per kernel version in
# /var/cache/acbridge-vm (ACBRIDGE_VM_CACHE). Its system tier boots the
# amd64 package (built here, amd64 only) in a Debian 12 root with systemd
# as PID 1 (scripts/vm/system.sh); the root's base is cached beside the
# kernel (scripts/vm/sysroot.sh). make test fills both caches in the
# background while the Go suite runs (scripts/vm/warm.sh). Times:
# docs/vm.md.
.PHONY: test-vm
test-vm:
	scripts/install-deps.sh vm
	scripts/vm/prepare.sh >/dev/null
	$(GO) build -o $(BIN) ./cmd/acbridge
	VERSION='$(VERSION)' COMMIT='$(COMMIT)' scripts/cross.sh amd64
	VERSION='$(VERSION)' COMMIT='$(COMMIT)' scripts/deb.sh amd64
	ACBRIDGE_VM=1 ACBRIDGE_BIN=$(abspath $(BIN)) ACBRIDGE_REQUIRE_SERVICES=1 \
	  $(GO) test -count=1 -timeout 40m -v ./vmtest/
