# SPDX-License-Identifier: GPL-2.0
# Kernel builds and QEMU runs; included by the top-level Makefile.
#
#   make kernels [KDIR=tree] [FLAVOR=debug]
#       build the stock kernel, and the patched one when
#       patches/linux-6.12/series lists patches (ci/kernel/build-kernel.sh)
#   make vmcheck KERNEL=stock|patched|both|path/to/bzImage [FLAVOR=debug]
#                [KBUILD=built-tree] [VMCMD='...'] [VMSLOW=ms] [VMTIMEOUT=s]
#       boot each kernel under QEMU (ci/vm/vm-run.sh) and run VMCMD inside;
#       results in .output/vm/<label>/ (stdout = KTAP, fsaio.json, dmesg,
#       console.log, splats, result).  Exit status: the worst verdict
#       (0 PASS, 1 FAIL, 2 ERROR, 4 SKIP; ERROR > FAIL > SKIP > PASS), as
#       make reports it: "Error N", and make itself exits 2 for any N != 0.
#       VMSTATUS=FILE receives N; ci/vm/vm-make.sh vmcheck ... exits with N.
#   make vmshell [KERNEL=stock]      interactive shell in the guest
#   make vmconfig-check KERNEL=path|KBUILD=dir   only check a kernel's config
#
# Variables: KDIR (kernel source, default the Debian 6.12 tree), FLAVOR
# (debug), KERNEL, KBUILD, VMCMD (guest command; @OUT@ = the guest's view of
# the results dir), VMLABEL (results label for KERNEL=path, default the
# kernel's release string), VMSLOW (dm-delay ms on the scratch disks), VMTIMEOUT,
# VMOPTS (extra ci/vm/vm-run.sh options), NOBUILD=1 (use cached kernels only),
# FSAIO_KCACHE (kernel cache, default /var/cache/fsaio/kernels).

KERNEL		?= stock
FLAVOR		?=
KDIR		?=
KBUILD		?=
VMCMD		?= ./fsaio check --json @OUT@/fsaio.json
VMSLOW		?= 0
VMTIMEOUT	?= 1800
VMOPTS		?=
VMLABEL		?=
NOBUILD		?=

VM_SERIES	:= patches/linux-6.12/series
VM_HAVE_SERIES	:= $(shell grep -qv '^[[:space:]]*\(\#.*\)\?$$' $(VM_SERIES) 2>/dev/null && echo 1)
VM_BK_ARGS	:= $(if $(KDIR),--kdir $(KDIR)) $(if $(FLAVOR),--flavor $(FLAVOR))
VM_SUFFIX	:= $(if $(FLAVOR),-$(FLAVOR))
# KASAN's shadow memory and lockdep want more room.  nowatchdog: under TCG
# the soft-lockup detector measures host CPU starvation (a vCPU descheduled
# by a busy host), not guest lockups; hung-task panic stays armed.
VM_DEBUG_OPTS	:= $(if $(filter debug,$(FLAVOR)),--mem 3G --append nowatchdog)

.PHONY: kernels kernel-stock kernel-patched vmcheck vmshell vmconfig-check

kernels: kernel-stock $(if $(VM_HAVE_SERIES),kernel-patched)

kernel-stock:
	ci/install-deps.sh --vm
	ci/kernel/build-kernel.sh $(VM_BK_ARGS)

kernel-patched:
	ci/install-deps.sh --vm
	ci/kernel/build-kernel.sh --patched $(VM_BK_ARGS)

# vm_kernel stock|patched|PATH: print the bzImage path (building unless NOBUILD).
define vm_kernel_sh
vm_kernel() { \
	case $$1 in \
	stock|patched) \
		p=; [ $$1 = patched ] && p=--patched; \
		if [ -n "$(NOBUILD)" ]; then \
			ci/kernel/build-kernel.sh $$p $(VM_BK_ARGS) --path || \
			{ echo "vmcheck: no cached $$1 kernel (run make kernels)" >&2; return 1; }; \
		else \
			ci/kernel/build-kernel.sh $$p $(VM_BK_ARGS); \
		fi ;; \
	*) [ -f "$$1" ] || { echo "vmcheck: no such kernel $$1" >&2; return 1; }; echo "$$1" ;; \
	esac; \
}
endef

# KERNEL=both -> stock patched; KBUILD=dir -> its bzImage.
VM_KERNELS = $(if $(KBUILD),$(KBUILD)/arch/x86/boot/bzImage,$(if $(filter both,$(KERNEL)),stock patched,$(KERNEL)))

# Verdict ranking for the exit status: ERROR (2) > FAIL (1, other) > SKIP (4) > PASS.
vmcheck:
	@$(vm_kernel_sh); $(vm_status_sh); \
	err=0; fail=0; skip=0; summary=; \
	for k in $(VM_KERNELS); do \
		case $$k in \
		stock|patched) label=$$k$(VM_SUFFIX); \
			if [ $$k = patched ] && [ -z "$(VM_HAVE_SERIES)" ]; then \
				echo "vmcheck: $(VM_SERIES) lists no patches" >&2; err=1; \
				summary="$$summary\n  $$label: ERROR (no patch series)"; continue; fi ;; \
		*) label=; \
			ci/kernel/build-kernel.sh --check-kernel $$k $(if $(KBUILD),--kbuild $(KBUILD)) || \
			{ err=1; summary="$$summary\n  $$k: ERROR (kernel lacks required options)"; continue; } ;; \
		esac; \
		bz=$$(vm_kernel $$k) && [ -f "$$bz" ] || \
			{ err=1; summary="$$summary\n  $$k: ERROR (no kernel: not built or build failed)"; continue; }; \
		[ -n "$$label" ] || label=$(or $(VMLABEL),$$(ci/vm/vm-run.sh --print-release --kernel $$bz)$(VM_SUFFIX)); \
		out=$(CURDIR)/$(OUTPUT)/vm/$$label; \
		echo "vmcheck: $$label: $$bz -> $$out" >&2; \
		ci/vm/vm-run.sh --kernel $$bz --label $$label --out $$out \
			--timeout $(VMTIMEOUT) --slow $(VMSLOW) $(VM_DEBUG_OPTS) $(VMOPTS) -- '$(VMCMD)'; \
		case $$? in 0) ;; 2) err=1 ;; 4) skip=1 ;; *) fail=1 ;; esac; \
		ln -sfn stdout $$out/results.ktap; \
		summary="$$summary\n  $$label: $$(cat $$out/result 2>/dev/null || echo 'ERROR (no result)')"; \
	done; \
	printf "vmcheck summary:$$summary\n" >&2; \
	[ $$err = 1 ] && vm_status 2; [ $$fail = 1 ] && vm_status 1; [ $$skip = 1 ] && vm_status 4; vm_status 0

vmshell:
	@$(vm_kernel_sh); \
	bz=$$(vm_kernel $(firstword $(VM_KERNELS))) || exit 2; \
	ci/vm/vm-run.sh --kernel $$bz --label shell --interactive --timeout $(VMTIMEOUT) \
		--slow $(VMSLOW) $(VMOPTS) -- '$(if $(filter command line,$(origin VMCMD)),$(VMCMD),bash -i)'

vmconfig-check:
	ci/kernel/build-kernel.sh --check-kernel $(firstword $(VM_KERNELS)) $(if $(KBUILD),--kbuild $(KBUILD))

# ---- kselftest ----------------------------------------------------------------------
#   make selftest-install KSRC=<kernel tree>
#       copy ci/selftests/fsaio to KSRC/tools/testing/selftests/fsaio, with
#       fsaio-root naming this checkout; then in KSRC:
#       make -C tools/testing/selftests TARGETS=fsaio run_tests
#   make selftest-tree KSFT_TREE=<scratch dir> [KSRC=<kernel tree>]
#       the same into a scratch copy of just the kselftest framework
#       (selftests/Makefile, lib.mk, kselftest*.h, kselftest/, subarch.include)
#       taken from KSRC (default KDIR or the Debian 6.12 tree), which is only read
#   make vmselftest [KERNEL=stock|patched|both|path] [VMSELFTEST_ARGS='workloads']
#       boot each kernel, build a scratch tree in the guest's /var/tmp, run
#       the make command above there, and check the KTAP on the host with
#       kunit.py parse (ci/selftests/ktap-check.sh); results in .output/vm-selftest/<label>/
#       (ktap.txt = the run_tests output, nested-*.ktap, kunit-*.txt, fsaio.json)
#   make vmselftest-errors [KERNEL=stock]
#       kill QEMU mid-run, panic the guest, bogus init, timeout: each must be an
#       ERROR with its reason and leave no QEMU process or temp file
#       (ci/vm/vm-error-tests.sh; tests/e2e covers the same with a fake QEMU)
# Exit status: the verdict (make turns any failure into 2; VMSTATUS=FILE gets
# the exact code, which ci/vm/vm-make.sh TARGET ... exits with).
KSRC		?=
KSFT_TREE	?=
VMSELFTEST_ARGS	?=
VMSTATUS	?=
VM_KSRC		:= $(or $(KSRC),$(KDIR),/var/cache/fsaio/src/linux-source-6.12)
SELFTEST_FILES	:= Makefile config settings .gitignore fsaio_check.sh fsaio_prereq.c
KSFT_FRAMEWORK	:= $(addprefix tools/testing/selftests/,Makefile lib.mk kselftest.h \
		   kselftest_harness.h kselftest_module.h kselftest run_kselftest.sh) \
		   scripts/subarch.include
VM_KSFT_GUEST	:= /var/tmp/fsaio-ksft

# vm_status N: record the verdict for ci/vm/vm-make.sh, then exit with it.
vm_status_sh = vm_status() { [ -z "$(VMSTATUS)" ] || echo $$1 >"$(VMSTATUS)"; exit $$1; }

.PHONY: selftest-install selftest-tree vmselftest vmselftest-errors

selftest-install:
	@[ -n "$(KSRC)" ] && [ -f "$(KSRC)/tools/testing/selftests/lib.mk" ] || \
		{ echo "selftest-install: KSRC= must name a kernel tree (with tools/testing/selftests/lib.mk)" >&2; exit 2; }
	@d=$$(cd "$(KSRC)" && pwd)/tools/testing/selftests/fsaio; \
	rm -rf "$$d" && mkdir -p "$$d" && \
	(cd ci/selftests/fsaio && cp -p $(SELFTEST_FILES) "$$d/") && \
	echo "$(CURDIR)" >"$$d/fsaio-root" && \
	echo "selftest-install: $$d (runs $(CURDIR)/fsaio)"

selftest-tree:
	@[ -n "$(KSFT_TREE)" ] || { echo "selftest-tree: KSFT_TREE=<scratch dir>" >&2; exit 2; }
	@[ -f "$(VM_KSRC)/tools/testing/selftests/lib.mk" ] || \
		{ echo "selftest-tree: $(VM_KSRC) has no tools/testing/selftests (KSRC=)" >&2; exit 2; }
	@mkdir -p "$(KSFT_TREE)" && t=$$(cd "$(KSFT_TREE)" && pwd) && \
	(cd "$(VM_KSRC)" && cp -a --parents $(KSFT_FRAMEWORK) "$$t/")
	@$(MAKE) --no-print-directory selftest-install KSRC="$(abspath $(KSFT_TREE))"

# In the guest: a scratch tree in /var/tmp (tmpfs), then the kernel's own
# kselftest make command, its stdout (the TAP) through a pipe: the runner
# appends each test's output to /dev/stdout, which on a plain file (the out
# share) would be overwritten by the runner's own writes.
VMSELFTEST_CMD = set -e; \
	make --no-print-directory selftest-tree KSRC=$(VM_KSRC) KSFT_TREE=$(VM_KSFT_GUEST) >&2; \
	export FSAIO_SELFTEST_JSON=@OUT@/fsaio.json$(if $(VMSELFTEST_ARGS), KSELFTEST_FSAIO_CHECK_SH_ARGS="$(VMSELFTEST_ARGS)"); \
	{ make --no-print-directory -C $(VM_KSFT_GUEST)/tools/testing/selftests TARGETS=fsaio run_tests; \
	  echo $$? >/tmp/ksft.rc; } | cat; exit $$(cat /tmp/ksft.rc)

# Builds fsaio only when it is missing (like vmcheck, it runs what is built).
vmselftest:
	@[ -x fsaio ] && [ -d $(OUTPUT)/workloads ] || $(MAKE) --no-print-directory all
	@$(vm_kernel_sh); $(vm_status_sh); \
	err=0; fail=0; skip=0; summary=; \
	for k in $(VM_KERNELS); do \
		case $$k in \
		stock|patched) label=$$k$(VM_SUFFIX) ;; \
		*) label=$(or $(VMLABEL),$$(ci/vm/vm-run.sh --print-release --kernel $$k)$(VM_SUFFIX)) ;; \
		esac; \
		bz=$$(vm_kernel $$k) && [ -f "$$bz" ] || \
			{ err=1; summary="$$summary\n  $$label: ERROR (no kernel: not built or build failed)"; continue; }; \
		out=$(CURDIR)/$(OUTPUT)/vm-selftest/$$label; \
		echo "vmselftest: $$label: $$bz -> $$out" >&2; \
		rm -f $$out/nested* $$out/kunit-* $$out/ktap-check.txt $$out/verdict* $$out/fsaio.json; \
		ci/vm/vm-run.sh --kernel $$bz --label $$label --out $$out --timeout $(VMTIMEOUT) \
			--disks none $(VM_DEBUG_OPTS) $(VMOPTS) -- '$(VMSELFTEST_CMD)' >/dev/null; \
		vrc=$$?; \
		ln -sfn stdout $$out/ktap.txt; \
		ci/selftests/ktap-check.sh --kunit $(VM_KSRC)/tools/testing/kunit/kunit.py --out $$out $$out/stdout; \
		krc=$$?; \
		[ -s $$out/stdout ] && grep -E '^(TAP version|1\.\.|(not )?ok )' $$out/stdout | sed 's/^/  /' >&2; \
		r=$$(cat $$out/result 2>/dev/null || echo 'ERROR (no result)'); \
		if [ $$vrc = 2 ] || [ $$krc = 2 ]; then err=1; v=ERROR; \
		elif [ $$vrc != 0 ] && [ $$vrc != 4 ] || [ $$krc = 1 ]; then fail=1; v=FAIL; \
		elif [ $$krc = 4 ]; then skip=1; v=SKIP; else v=PASS; fi; \
		echo "$$v vm: $$r; ktap-check: exit $$krc (ktap-check.txt)" >$$out/verdict; \
		summary="$$summary\n  $$label: $$(cat $$out/verdict)"; \
	done; \
	printf "vmselftest summary:$$summary\n" >&2; \
	[ $$err = 1 ] && vm_status 2; [ $$fail = 1 ] && vm_status 1; [ $$skip = 1 ] && vm_status 4; vm_status 0

vmselftest-errors:
	@$(vm_kernel_sh); $(vm_status_sh); \
	bz=$$(vm_kernel $(firstword $(VM_KERNELS))) && [ -f "$$bz" ] || vm_status 2; \
	ci/vm/vm-error-tests.sh --kernel $$bz --out $(CURDIR)/$(OUTPUT)/vm-selftest/errors; vm_status $$?
