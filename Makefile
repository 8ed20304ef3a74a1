# SPDX-License-Identifier: GPL-2.0
# fsaio: one entry point.  `make help` lists every target: the text after a
# target's "##" in this file and in the ci/*/*.mk files it includes.
# Packages come from `ci/install-deps.sh [--vm]` (the README's install step);
# make only checks for them and says what is missing.
OUTPUT	:= .output
CLANG	?= clang
BPFTOOL	?= bpftool
CC	?= gcc
ARCH	:= $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

CFLAGS	?= -O2 -g
CFLAGS	+= -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	   -Wno-format-truncation \
	   -std=gnu11 -D_GNU_SOURCE -I$(OUTPUT) -I. -Iharness
LIBS_HARNESS := $(shell pkg-config --libs libbpf json-c gsl 2>/dev/null || echo -lbpf -lelf -lz -ljson-c -lgsl -lgslcblas -lm)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ibpf -I$(OUTPUT) -Wall \
	      -Wno-unused-function

# The BPF programs: one file per event source (bpf/common.bpf.h lists
# them); maps.bpf.o, which defines every map and global, links first.
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(OUTPUT)/bpf/maps.bpf.o \
	    $(filter-out %/maps.bpf.o,$(patsubst bpf/%.c,$(OUTPUT)/bpf/%.o,$(BPF_SRCS)))

# stap/fsaio.stp's constants, generated (bpf/gen-stap-consts.c)
STAP_CONSTS := $(OUTPUT)/stap/tapset/fsaio.stpm

# The harness, in layers (README "Layout"): record -> decode -> checker ->
# report.  core/ is pure (decode, checker, verdicts, feature table): it
# builds into its own archive and the unit tests link nothing else, so a
# libbpf or json-c call in the core fails their link; its includes are
# checked on every build as well.
CORE_SRCS := $(wildcard harness/core/*.c)
HARNESS_SRCS := $(wildcard harness/*.c harness/*/*.c)
HARNESS_OBJS := $(patsubst harness/%.c,$(OUTPUT)/harness/%.o,$(HARNESS_SRCS))
CORE_OBJS := $(patsubst harness/%.c,$(OUTPUT)/harness/%.o,$(CORE_SRCS))
CORE_LIB := $(OUTPUT)/harness/libfsaio-core.a
# What the core may not include: libbpf, json-c, the other layers, common.h.
CORE_FORBIDDEN := /bpf/(libbpf|bpf|btf)\.h|json-c/|harness/(live|run|report|results|cmd)/|skel\.h|harness/common\.h

WORKLOAD_SRCS := $(wildcard workloads/*.c)
WORKLOADS := $(patsubst workloads/%.c,$(OUTPUT)/workloads/%,$(WORKLOAD_SRCS))
# libwl: what the workloads share (workloads/lib/), built once, linked into
# each.  Not under $(OUTPUT)/workloads: every executable there is a workload.
WL_LIB_SRCS := $(wildcard workloads/lib/*.c)
WL_LIB_OBJS := $(patsubst workloads/lib/%.c,$(OUTPUT)/lib/wl/%.o,$(WL_LIB_SRCS))
WL_LIB := $(OUTPUT)/lib/libwl.a
# The conformance corpus (tests/conformance/README.md): programs with the
# workloads' conventions (libwl, -d/-n, the fsaio-workload: line) that are
# not in the default suite; run as fsaio check -- .output/conformance/NAME.
CONF_SRCS := $(wildcard tests/conformance/*.c)
CONFS := $(patsubst tests/conformance/%.c,$(OUTPUT)/conformance/%,$(CONF_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))

DEPS_STAMP := $(OUTPUT)/.deps-installed

.PHONY: all help deps check check-debug check-host check-load unit e2e run vmlinux clean reproducers
all: fsaio $(WORKLOADS) $(CONFS) $(STAP_CONSTS) ## build the BPF object, skeleton, fsaio, workloads and conformance programs

help: ## this list
	@awk -F':.*## ' '/^[a-zA-Z][a-zA-Z0-9_-]*:.*## / { printf "  %-18s %s\n", $$1, $$2 }' \
		$(MAKEFILE_LIST) | sort

# A recipe that fails leaves no half-written target (an empty skel.h
# after a failed bpftool would otherwise count as up to date).
.DELETE_ON_ERROR:

# The host's packages, checked once per checkout: make installs nothing
# itself (ci/install-deps.sh --check names what is missing and how to get it).
$(DEPS_STAMP): ci/install-deps.sh
	@mkdir -p $(OUTPUT)
	@ci/install-deps.sh --check
	@touch $@
deps: ## install the Debian packages the host build and tests need (root)
	ci/install-deps.sh

# Each BPF source compiled alone, the objects linked into one (bpftool gen
# object, as retsnoop does) and one skeleton.  -MMD: an object depends on
# every header it includes.
$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@
-include $(BPF_OBJS:.o=.d)

$(OUTPUT)/fsaio.bpf.o: $(BPF_OBJS)
	$(BPFTOOL) gen object $@ $^

$(OUTPUT)/fsaio.skel.h: $(OUTPUT)/fsaio.bpf.o
	$(BPFTOOL) gen skeleton $< name fsaio_bpf > $@

# stap/fsaio.stp's constants (event types, flags, syscall numbers), printed
# from the headers the BPF objects are built with (bpf/gen-stap-consts.c)
# as a SystemTap macro library; stap/fsaio-stap.sh passes its directory.
$(OUTPUT)/stap/gen-stap-consts: bpf/gen-stap-consts.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -D__TARGET_ARCH_$(ARCH) -Ibpf -MMD -MP -MF $@.d $< -o $@
-include $(OUTPUT)/stap/gen-stap-consts.d
$(STAP_CONSTS): $(OUTPUT)/stap/gen-stap-consts
	@mkdir -p $(@D)
	$< > $@

$(OUTPUT)/harness/%.o: harness/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
$(OUTPUT)/harness/core/%.o: harness/core/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MD -MP -c $< -o $@
	@! grep -qE '$(CORE_FORBIDDEN)' $(@:.o=.d) || { rm -f $@; echo "$<: the core must not include" \
		"$$(grep -oE '$(CORE_FORBIDDEN)' $(@:.o=.d) | sort -u | tr '\n' ' ')" >&2; exit 1; }
# Only the tracer includes the skeleton.
$(OUTPUT)/harness/live/tracer.o: $(OUTPUT)/fsaio.skel.h
-include $(HARNESS_OBJS:.o=.d)

$(CORE_LIB): $(CORE_OBJS)
	$(AR) rcs $@ $^

fsaio: $(filter-out $(CORE_OBJS),$(HARNESS_OBJS)) $(CORE_LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LIBS_HARNESS)

# Every C object and program below writes its header dependencies (-MMD);
# the .d files are included at the end.
$(OUTPUT)/lib/wl/%.o: workloads/lib/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(WL_LIB): $(WL_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# A workload's .d sits beside it under $(OUTPUT)/deps/: every executable in
# $(OUTPUT)/workloads is a workload.
$(OUTPUT)/workloads/%: workloads/%.c $(WL_LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(OUTPUT)/deps/workloads
	$(CC) $(CFLAGS) $(WL_CFLAGS) -MMD -MP -MF $(OUTPUT)/deps/workloads/$*.d $< $(WL_LIB) -o $@ \
		-laio -luring $(WL_LIBS)
# aio_fuse_stall is a FUSE daemon too (libfuse3)
$(OUTPUT)/workloads/aio_fuse_stall: WL_CFLAGS = $(shell pkg-config --cflags fuse3)
$(OUTPUT)/workloads/aio_fuse_stall: WL_LIBS = $(shell pkg-config --libs fuse3)

# Reproducers of known, open defects of the series (tests/reproducers/
# README.md): built, never run by a suite, so that they cannot turn one red
# until their fix lands and they move to workloads/.
REPRO_SRCS := $(wildcard tests/reproducers/*.c)
REPROS := $(patsubst tests/reproducers/%.c,$(OUTPUT)/reproducers/%,$(REPRO_SRCS))
reproducers: $(REPROS) ## build the reproducers of open defects (tests/reproducers/)
all: $(REPROS)	# they keep compiling

$(OUTPUT)/reproducers/%: tests/reproducers/%.c $(WL_LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(OUTPUT)/deps/reproducers
	$(CC) $(CFLAGS) -MMD -MP -MF $(OUTPUT)/deps/reproducers/$*.d -Iworkloads $< $(WL_LIB) -o $@ \
		-laio -luring -lpthread

$(OUTPUT)/conformance/%: tests/conformance/%.c $(WL_LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(OUTPUT)/deps/conformance
	$(CC) $(CFLAGS) -MMD -MP -MF $(OUTPUT)/deps/conformance/$*.d -Iworkloads $< $(WL_LIB) -o $@ \
		-laio -luring -lpthread

# -Wno-clobbered: TEST_F in the kernel's kselftest_harness.h sets a local
# after setjmp(); after a failed ASSERT the fixture teardown may be skipped,
# which costs nothing in a test process about to exit.
$(OUTPUT)/tests/%: tests/unit/%.c $(CORE_LIB)
	@mkdir -p $(@D) $(OUTPUT)/deps/tests
	$(CC) $(CFLAGS) -MMD -MP -MF $(OUTPUT)/deps/tests/$*.d -Wno-clobbered -Itests/unit $< \
		$(CORE_LIB) -o $@

-include $(wildcard $(OUTPUT)/lib/wl/*.d $(OUTPUT)/deps/*/*.d)

unit: $(UNIT_TESTS) ## the unit tests (kselftest_harness), linked against the pure core only
	@for t in $(UNIT_TESTS); do $$t || exit 1; done

e2e: all ## the end-to-end tests on the running kernel (tests/e2e/run.sh [NAME...])
	tests/e2e/run.sh

# Checks of the tree that need no kernel: the docs tell the truth (links
# and paths exist, every option is in the man page, README stays short,
# no work-tracking words: tests/docs/), the bench JSON module builds what
# the committed bench.json holds (tests/bench/).
TREE_CHECKS := tests/docs/check-docs.sh tests/bench/bench-jq.sh

# The event-log fuzzer and the corruption rule (tests/fuzz/README.md):
# make fuzz, and $(FUZZ_CHECKS) beside the unit tests in every check.
include tests/fuzz/fuzz.mk

VMTIER	?= both
CHECK_LOAD ?= 2
check: all $(UNIT_TESTS) $(FUZZ_BIN) $(CORRUPT_TEST) ## unit + e2e on this kernel beside a stress-ng load (CHECK_LOAD=F per CPU, 0: none) + the suite in QEMU on stock and patched 6.12 (VMTIER=stock|patched|none)
	@$(if $(filter none,$(VMTIER)),,ci/install-deps.sh --check --vm &&) \
	tests/run-all.sh --load $(CHECK_LOAD) $(if $(filter none,$(VMTIER)),,--vm $(VMTIER)) $(UNIT_TESTS) $(FUZZ_CHECKS) $(TREE_CHECKS)

# The debug flavour (KASAN, lockdep on top of the default detectors) of the
# patched kernel: slower to build (cold ~25 min) and to run, so not in
# `make check`; resolving a change to the series requires it.
check-debug: all $(UNIT_TESTS) $(FUZZ_BIN) $(CORRUPT_TEST) ## make check on the KASAN + lockdep flavour of the patched kernel
	@ci/install-deps.sh --check --vm && \
	FLAVOR=debug tests/run-all.sh --vm patched $(UNIT_TESTS) $(FUZZ_CHECKS) $(TREE_CHECKS)

check-host: all $(UNIT_TESTS) $(FUZZ_BIN) $(CORRUPT_TEST) ## unit + e2e tests on the running kernel only
	@tests/run-all.sh $(UNIT_TESTS) $(FUZZ_CHECKS) $(TREE_CHECKS)

check-load: all $(UNIT_TESTS) $(FUZZ_BIN) $(CORRUPT_TEST) ## check-host with stress-ng loading every CPU twice over beside it
	@tests/load/check-load.sh $(UNIT_TESTS) $(FUZZ_CHECKS) $(TREE_CHECKS)

run: all ## the main job: fsaio check over the default workload suite
	./fsaio check

vmlinux: ## regenerate bpf/vmlinux.h from the running kernel's BTF
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux.h

clean: ## remove .output and fsaio
	rm -rf $(OUTPUT) fsaio

# Kernel builds and QEMU runs (make kernels, make vmcheck) live in ci/vm/vm.mk.
-include ci/vm/vm.mk
-include ci/bench/bench.mk
-include ci/crash/crash.mk
-include ci/db/db.mk
-include ci/lava/lava.mk
-include ci/stap/stap.mk
