# SPDX-License-Identifier: GPL-2.0
# Kernel builds and QEMU runs; included by the top-level Makefile.
#
#   make kernels [KDIR=tree] [FLAVOR=debug] [KVER=6.1]
#       build the stock kernel, and the patched one when
#       patches/linux-6.12/series lists patches (ci/kernel/build-kernel.sh);
#       KVER=V: only the stock kernel of Debian's linux-source-V
#   make vmcheck KERNEL=stock|patched|both|stock-V|debian|path/to/bzImage [FLAVOR=debug]
#                [KBUILD=built-tree] [VMCMD='...'] [VMDISKS=fs,...] [VMSLOW=ms]
#                [VMTIMEOUT=s]
#       boot each kernel under QEMU (ci/vm/vm-run.sh) and run VMCMD inside;
#       results in .output/vm/<label>/ (stdout = KTAP, fsaio.json, dmesg,
#       console.log, splats, result).  Exit status: the worst verdict
#       (ERROR > FAIL > SKIP > PASS, harness/exit_status.h), as make
#       reports it: "Error N", and make itself exits 2 for any N != 0.
#       VMSTATUS=FILE receives N; ci/vm/vm-make.sh vmcheck ... exits with N.
#   make vmshell [KERNEL=stock]      interactive shell in the guest
#   make vmconfig-check KERNEL=path|KBUILD=dir   only check a kernel's config
#
# Variables: KDIR (kernel source, default the Debian 6.12 tree), FLAVOR
# (debug), KERNEL, KBUILD, VMCMD (guest command; @OUT@ = the guest's view of
# the results dir; default ci/vm/guest-suite.sh: the suite, then
# aio_osync_write -D on the f2fs scratch disk), VMDISKS (vmcheck's scratch
# disks, ci/vm/vm-run.sh --disks; default ext4,xfs,f2fs: the default VMCMD
# needs the f2fs one), VMLABEL (results label for KERNEL=path, default the
# kernel's release string), VMSLOW (dm-delay ms on the scratch disks), VMTIMEOUT,
# VMOPTS (extra ci/vm/vm-run.sh options), NOBUILD=1 (use cached kernels only),
# VMRESULTS (results directory under .output, default vm),
# FSAIO_KCACHE (kernel cache, default /var/cache/fsaio/kernels).

# The exit status numbers (EXIT_PASS, EXIT_FAIL, EXIT_SKIP, EXIT_ERROR,
# EXIT_USAGE), as ci/lib.sh reads them from harness/exit_status.h.
$(foreach v,$(shell bash ci/lib.sh exit-status),$(eval $(v)))
$(if $(EXIT_ERROR),,$(error ci/lib.sh could not read the exit status numbers from harness/exit_status.h))
BUILD_KERNEL	:= ci/kernel/build-kernel.sh
VM_RUN		:= ci/vm/vm-run.sh

KERNEL		?= stock
FLAVOR		?=
KDIR		?=
KBUILD		?=
VMCMD		?= ci/vm/guest-suite.sh @OUT@/fsaio.json
VMDISKS		?= ext4,xfs,f2fs
VMSLOW		?= 0
VMTIMEOUT	?= 1800
VMOPTS		?=
VMLABEL		?=
NOBUILD		?=
# results under .output/<VMRESULTS>/<label> (make vmcrash: vm-crash)
VMRESULTS	?= vm

VM_SERIES	:= patches/linux-6.12/series
VM_HAVE_SERIES	:= $(shell grep -qv '^[[:space:]]*\(\#.*\)\?$$' $(VM_SERIES) 2>/dev/null && echo 1)
VM_BK_ARGS	:= $(if $(KDIR),--kdir $(KDIR)) $(if $(FLAVOR),--flavor $(FLAVOR))
VM_SUFFIX	:= $(if $(FLAVOR),-$(FLAVOR))
# KASAN's shadow memory and lockdep want more room.  Under TCG a KASAN +
# lockdep kernel runs so slowly that ACPI's AML interpreter times out on
# every PCI routing method (30 s each, measured) and RCU's 21 s stall
# timeout fires during boot: acpi=off (the guest ends with `reboot -f`,
# and PCI interrupts route through the MP table), the longest RCU stall
# timeout (300 s; a real stall still ends the run, later), nowatchdog (the
# soft-lockup detector measures host CPU starvation under TCG, not guest
# lockups; hung-task panic stays armed).  kmemleak and SLUB debugging,
# which the default flavour runs, are left off: KASAN finds what they
# find here, and each multiplies the slowdown.  Three vCPUs on this
# machine's two cores: a vCPU descheduled mid-critical-section widens
# the race windows (race amplification).
VM_DEBUG_OPTS	:= $(if $(filter debug,$(FLAVOR)),--mem 3G --cpus 3 --append 'nowatchdog acpi=off \
		   rcupdate.rcu_cpu_stall_timeout=300 kmemleak=off slub_debug=-')

.PHONY: kernels kernel-stock kernel-patched vmcheck vmshell vmconfig-check bisect-check check-matrix

# make check-matrix: the suite on host, 6.1 stock, Debian's packaged kernel,
# 6.12 stock and patched; a table of invariant verdicts per kernel
# (ci/vm/check-matrix.sh; MATRIX_KERNELS narrows it).
check-matrix: all
	ci/vm/check-matrix.sh

KVER		?=
kernels: kernel-stock $(if $(KVER),,$(if $(VM_HAVE_SERIES),kernel-patched))

kernel-stock:
	ci/install-deps.sh $(if $(KVER),--kver $(KVER),--vm)
	$(BUILD_KERNEL) $(VM_BK_ARGS) $(if $(KVER),--kver $(KVER))

kernel-patched:
	ci/install-deps.sh --vm
	$(BUILD_KERNEL) --patched $(VM_BK_ARGS)

# Every prefix of the series compiles (its .c files' objects, -Werror), in a
# copy of the patched kernel's O= tree: ci/kernel/bisect-build.sh.
bisect-check: kernel-patched
	ci/kernel/bisect-build.sh

# vm_kernel stock|patched|stock-V|debian|PATH: print the bzImage path (building
# unless NOBUILD); for debian (Debian's packaged kernel, whose virtio and 9p
# are modules) "VMLINUZ INITRD" (ci/kernel/debian-kernel.sh).
define vm_kernel_sh
vm_kernel() { \
	case $$1 in \
	debian) \
		ci/kernel/debian-kernel.sh $(if $(NOBUILD),--print) | tail -1 || \
		{ echo "vmcheck: no cached Debian kernel (run without NOBUILD)" >&2; return 1; } ;; \
	stock-*) \
		v=$${1#stock-}; \
		if [ -n "$(NOBUILD)" ]; then \
			$(BUILD_KERNEL) --kver $$v $(VM_BK_ARGS) --path || \
			{ echo "vmcheck: no cached $$1 kernel (run make kernels KVER=$$v)" >&2; return 1; }; \
		else \
			ci/install-deps.sh --kver $$v >&2 && $(BUILD_KERNEL) --kver $$v $(VM_BK_ARGS); \
		fi ;; \
	stock|patched) \
		p=; [ $$1 = patched ] && p=--patched; \
		if [ -n "$(NOBUILD)" ]; then \
			$(BUILD_KERNEL) $$p $(VM_BK_ARGS) --path || \
			{ echo "vmcheck: no cached $$1 kernel (run make kernels)" >&2; return 1; }; \
		else \
			$(BUILD_KERNEL) $$p $(VM_BK_ARGS); \
		fi ;; \
	*) [ -f "$$1" ] || { echo "vmcheck: no such kernel $$1" >&2; return 1; }; echo "$$1" ;; \
	esac; \
}
endef

# KERNEL=both -> stock patched; KBUILD=dir -> its bzImage.
VM_KERNELS = $(if $(KBUILD),$(KBUILD)/arch/x86/boot/bzImage,$(if $(filter both,$(KERNEL)),stock patched,$(KERNEL)))

# The verdict over several runs, from their exit statuses:
#   vm_class RC   what RC stands for: EXIT_PASS, EXIT_SKIP, EXIT_ERROR (also
#                 for EXIT_USAGE: no verdict), anything else EXIT_FAIL
#   vm_worse A B  the worse of two: ERROR > FAIL > SKIP > PASS
#   vm_word RC    PASS, FAIL, SKIP or ERROR
#   vm_status N   record N in VMSTATUS (for ci/vm/vm-make.sh), exit with N
define vm_verdict_sh
vm_class() { case $$1 in $(EXIT_PASS)|$(EXIT_SKIP)|$(EXIT_ERROR)) echo $$1 ;; \
	$(EXIT_USAGE)) echo $(EXIT_ERROR) ;; *) echo $(EXIT_FAIL) ;; esac; }; \
vm_worse() { _a=$$(vm_class $$1) _b=$$(vm_class $$2); \
	for _s in $(EXIT_ERROR) $(EXIT_FAIL) $(EXIT_SKIP); do \
		[ $$_a = $$_s ] || [ $$_b = $$_s ] && { echo $$_s; return; }; done; \
	echo $(EXIT_PASS); }; \
vm_word() { case $$(vm_class $$1) in $(EXIT_PASS)) echo PASS ;; $(EXIT_SKIP)) echo SKIP ;; \
	$(EXIT_ERROR)) echo ERROR ;; *) echo FAIL ;; esac; }; \
vm_status() { [ -z "$(VMSTATUS)" ] || echo $$1 >"$(VMSTATUS)"; exit $$1; }
endef

vmcheck: all
	@$(vm_kernel_sh); $(vm_verdict_sh); \
	worst=$(EXIT_PASS); summary=; \
	for k in $(VM_KERNELS); do \
		case $$k in \
		stock|patched|stock-*|debian) label=$$k$(VM_SUFFIX); \
			if [ $$k = patched ] && [ -z "$(VM_HAVE_SERIES)" ]; then \
				echo "vmcheck: $(VM_SERIES) lists no patches" >&2; worst=$(EXIT_ERROR); \
				summary="$$summary\n  $$label: ERROR (no patch series)"; continue; fi ;; \
		*) label=; \
			$(BUILD_KERNEL) --check-kernel $$k $(if $(KBUILD),--kbuild $(KBUILD)) || \
			{ worst=$(EXIT_ERROR); summary="$$summary\n  $$k: ERROR (kernel lacks required options)"; continue; } ;; \
		esac; \
		kk=$$(vm_kernel $$k); bz=$${kk%% *}; ird=; \
		[ "$$bz" = "$$kk" ] || ird=$${kk#* }; \
		[ -n "$$kk" ] && [ -f "$$bz" ] || \
			{ worst=$(EXIT_ERROR); summary="$$summary\n  $$k: ERROR (no kernel: not built or build failed)"; continue; }; \
		[ -n "$$label" ] || label=$(or $(VMLABEL),$$($(VM_RUN) --print-release --kernel $$bz)$(VM_SUFFIX)); \
		out=$(CURDIR)/$(OUTPUT)/$(VMRESULTS)/$$label; \
		echo "vmcheck: $$label: $$bz -> $$out" >&2; \
		$(VM_RUN) --kernel $$bz $${ird:+--initrd $$ird} --label $$label --out $$out --disks $(VMDISKS) \
			--timeout $(VMTIMEOUT) --slow $(VMSLOW) $(VM_DEBUG_OPTS) $(VMOPTS) -- '$(VMCMD)'; \
		vrc=$$?; worst=$$(vm_worse $$worst $$vrc); \
		ln -sfn stdout $$out/results.ktap; \
		summary="$$summary\n  $$label: $$(cat $$out/result 2>/dev/null || echo 'ERROR (no result)')"; \
	done; \
	printf "vmcheck summary:$$summary\n" >&2; \
	vm_status $$worst

vmshell:
	@$(vm_kernel_sh); \
	bz=$$(vm_kernel $(firstword $(VM_KERNELS))) || exit $(EXIT_ERROR); \
	$(VM_RUN) --kernel $$bz --label shell --interactive --timeout $(VMTIMEOUT) \
		--slow $(VMSLOW) $(VMOPTS) -- '$(if $(filter command line,$(origin VMCMD)),$(VMCMD),bash -i)'

vmconfig-check:
	$(BUILD_KERNEL) --check-kernel $(firstword $(VM_KERNELS)) $(if $(KBUILD),--kbuild $(KBUILD))

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
VM_KSRC		:= $(or $(KSRC),$(KDIR),$(or $(FSAIO_SRCCACHE),/var/cache/fsaio/src)/linux-source-6.12)
SELFTEST_FILES	:= Makefile config settings .gitignore fsaio_check.sh fsaio_prereq.c
KSFT_FRAMEWORK	:= $(addprefix tools/testing/selftests/,Makefile lib.mk kselftest.h \
		   kselftest_harness.h kselftest_module.h kselftest run_kselftest.sh) \
		   scripts/subarch.include
VM_KSFT_GUEST	:= /var/tmp/fsaio-ksft

.PHONY: selftest-install selftest-tree vmselftest vmselftest-errors

selftest-install:
	@[ -n "$(KSRC)" ] && [ -f "$(KSRC)/tools/testing/selftests/lib.mk" ] || \
		{ echo "selftest-install: KSRC= must name a kernel tree (with tools/testing/selftests/lib.mk)" >&2; exit $(EXIT_USAGE); }
	@d=$$(cd "$(KSRC)" && pwd)/tools/testing/selftests/fsaio; \
	rm -rf "$$d" && mkdir -p "$$d" && \
	(cd ci/selftests/fsaio && cp -p $(SELFTEST_FILES) "$$d/") && \
	echo "$(CURDIR)" >"$$d/fsaio-root" && \
	echo "selftest-install: $$d (runs $(CURDIR)/fsaio)"

selftest-tree:
	@[ -n "$(KSFT_TREE)" ] || { echo "selftest-tree: KSFT_TREE=<scratch dir>" >&2; exit $(EXIT_USAGE); }
	@[ -f "$(VM_KSRC)/tools/testing/selftests/lib.mk" ] || \
		{ echo "selftest-tree: $(VM_KSRC) has no tools/testing/selftests (KSRC=)" >&2; exit $(EXIT_USAGE); }
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
	@$(vm_kernel_sh); $(vm_verdict_sh); \
	worst=$(EXIT_PASS); summary=; \
	for k in $(VM_KERNELS); do \
		case $$k in \
		stock|patched) label=$$k$(VM_SUFFIX) ;; \
		*) label=$(or $(VMLABEL),$$($(VM_RUN) --print-release --kernel $$k)$(VM_SUFFIX)) ;; \
		esac; \
		bz=$$(vm_kernel $$k) && [ -f "$$bz" ] || \
			{ worst=$(EXIT_ERROR); summary="$$summary\n  $$label: ERROR (no kernel: not built or build failed)"; continue; }; \
		out=$(CURDIR)/$(OUTPUT)/vm-selftest/$$label; \
		echo "vmselftest: $$label: $$bz -> $$out" >&2; \
		rm -f $$out/nested* $$out/kunit-* $$out/ktap-check.txt $$out/verdict* $$out/fsaio.json; \
		$(VM_RUN) --kernel $$bz --label $$label --out $$out --timeout $(VMTIMEOUT) \
			--disks none $(VM_DEBUG_OPTS) $(VMOPTS) -- '$(VMSELFTEST_CMD)' >/dev/null; \
		vrc=$$?; \
		ln -sfn stdout $$out/ktap.txt; \
		ci/selftests/ktap-check.sh --kunit $(VM_KSRC)/tools/testing/kunit/kunit.py --out $$out $$out/stdout; \
		krc=$$?; \
		[ -s $$out/stdout ] && grep -E '^(TAP version|1\.\.|(not )?ok )' $$out/stdout | sed 's/^/  /' >&2; \
		r=$$(cat $$out/result 2>/dev/null || echo 'ERROR (no result)'); \
		[ $$vrc = $(EXIT_SKIP) ] && vrc=$(EXIT_PASS); \
		v=$$(vm_worse $$vrc $$krc); worst=$$(vm_worse $$worst $$v); \
		echo "$$(vm_word $$v) vm: $$r; ktap-check: exit $$krc (ktap-check.txt)" >$$out/verdict; \
		summary="$$summary\n  $$label: $$(cat $$out/verdict)"; \
	done; \
	printf "vmselftest summary:$$summary\n" >&2; \
	vm_status $$worst

vmselftest-errors:
	@$(vm_kernel_sh); $(vm_verdict_sh); \
	bz=$$(vm_kernel $(firstword $(VM_KERNELS))) && [ -f "$$bz" ] || vm_status $(EXIT_ERROR); \
	ci/vm/vm-error-tests.sh --kernel $$bz --out $(CURDIR)/$(OUTPUT)/vm-selftest/errors; vm_status $$?

# ---- mutation testing -------------------------------------------------------
#   make mutants [MUTANTS='name ...']
#       apply each ci/mutants/*.patch to the cached patched tree, build it
#       incrementally, restore the series, run the suite on the mutant in
#       QEMU; print the kill table and the kill rate (ci/mutants/mutants.sh)
MUTANTS		?=
.PHONY: mutants
mutants: all
	@ci/mutants/mutants.sh $(MUTANTS)
