# SPDX-License-Identifier: GPL-2.0
# fsaio: one entry point.
#   make            build the BPF objects, skeleton, fsaio and the workloads
#   make check      unit tests, end-to-end tests on the running kernel, and
#                   the suite in QEMU on the stock and patched 6.12 kernels
#                   (built and cached on first use; VMTIER=stock|patched|none)
#   make check-host unit tests + end-to-end tests on the running kernel only
#   make run        the main job: fsaio check over the default workload suite
#   make vmlinux    regenerate bpf/vmlinux.h from the running kernel's BTF
#   make clean
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

.PHONY: all deps check check-debug check-host unit e2e run vmlinux clean
all: fsaio $(WORKLOADS) $(CONFS)

# A recipe that fails leaves no half-written target (an empty skel.h
# after a failed bpftool would otherwise count as up to date).
.DELETE_ON_ERROR:

# Install missing Debian packages once per checkout (idempotent script).
$(DEPS_STAMP): ci/install-deps.sh
	@mkdir -p $(OUTPUT)
	ci/install-deps.sh
	@touch $@
deps: $(DEPS_STAMP)

$(OUTPUT)/fsaio.bpf.o: bpf/fsaio.bpf.c bpf/fsaio.h bpf/core_fixes.bpf.h bpf/vmlinux.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/fsaio.skel.h: $(OUTPUT)/fsaio.bpf.o
	$(BPFTOOL) gen skeleton $< name fsaio_bpf > $@

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

$(OUTPUT)/lib/wl/%.o: workloads/lib/%.c workloads/lib/wl.h harness/exit_status.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(WL_LIB): $(WL_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(OUTPUT)/workloads/%: workloads/%.c workloads/lib/wl.h harness/exit_status.h $(WL_LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(WL_LIB) -o $@ -laio -luring

$(OUTPUT)/conformance/%: tests/conformance/%.c workloads/lib/wl.h harness/exit_status.h $(WL_LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iworkloads $< $(WL_LIB) -o $@ -laio -luring -lpthread

# -Wno-clobbered: TEST_F in the kernel's kselftest_harness.h sets a local
# after setjmp(); after a failed ASSERT the fixture teardown may be skipped,
# which costs nothing in a test process about to exit.
$(OUTPUT)/tests/%: tests/unit/%.c $(CORE_LIB) $(wildcard tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-clobbered -Itests/unit $< $(CORE_LIB) -o $@

unit: $(UNIT_TESTS)
	@for t in $(UNIT_TESTS); do $$t || exit 1; done

VMTIER	?= both
check: all $(UNIT_TESTS)
	@$(if $(filter none,$(VMTIER)),,ci/install-deps.sh --vm >/dev/null &&) \
	tests/run-all.sh $(if $(filter none,$(VMTIER)),,--vm $(VMTIER)) $(UNIT_TESTS)

# The debug flavour (KASAN, lockdep on top of the default detectors) of the
# patched kernel: slower to build (cold ~25 min) and to run, so not in
# `make check`; resolving a change to the series requires it.
check-debug: all $(UNIT_TESTS)
	@ci/install-deps.sh --vm >/dev/null && \
	FLAVOR=debug tests/run-all.sh --vm patched $(UNIT_TESTS)

check-host: all $(UNIT_TESTS)
	@tests/run-all.sh $(UNIT_TESTS)

run: all
	./fsaio check

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux.h

clean:
	rm -rf $(OUTPUT) fsaio

# Kernel builds and QEMU runs (make kernels, make vmcheck) live in ci/vm/vm.mk.
-include ci/vm/vm.mk
-include ci/bench/bench.mk
-include ci/crash/crash.mk
-include ci/lava/lava.mk
-include ci/stap/stap.mk
