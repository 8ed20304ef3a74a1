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
#       console.log, splats, result) (ci/vm/vmcheck.sh).  Exit status: the
#       worst verdict (ERROR > FAIL > PASS > SKIP, harness/exit_status.h), as make
#       reports it: "Error N", and make itself exits 2 for any N != 0.
#       VMSTATUS=FILE receives N; ci/vm/vm-make.sh vmcheck ... exits with N.
#   make vmshell [KERNEL=stock]      interactive shell in the guest
#   make vmconfig-check KERNEL=path|KBUILD=dir   only check a kernel's config
#
# Variables: KDIR (kernel source, default the Debian 6.12 tree), FLAVOR
# (debug), KERNEL, KBUILD, VMCMD (guest command; @OUT@ = the guest's view of
# the results dir; default ci/vm/guest-suite.sh: the suite, then
# the runs on the other scratch disks), VMDISKS (vmcheck's scratch
# disks, ci/vm/vm-run.sh --disks; default ext4,xfs,f2fs,btrfs: the default VMCMD
# needs them all), VMLABEL (results label for KERNEL=path, default the
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
VMCMD		?=
VMDISKS		?= ext4,xfs,f2fs,btrfs
VMSLOW		?= 0
VMTIMEOUT	?= 1800
VMOPTS		?=
VMLABEL		?=
NOBUILD		?=
# results under .output/<VMRESULTS>/<label> (make vmcrash: vm-crash)
VMRESULTS	?= vm
VMSTATUS	?=
# make's variables as the ci/vm scripts take them (ci/vm/vm-lib.sh vm_vars).
VM_VARS_ARGS	= KERNEL='$(KERNEL)' FLAVOR='$(FLAVOR)' KDIR='$(KDIR)' KBUILD='$(KBUILD)' \
		  NOBUILD='$(NOBUILD)' VMCMD='$(VMCMD)' VMDISKS='$(VMDISKS)' VMSLOW='$(VMSLOW)' \
		  VMTIMEOUT='$(VMTIMEOUT)' VMOPTS="$(VMOPTS)" VMLABEL='$(VMLABEL)' \
		  VMRESULTS='$(VMRESULTS)' VMSTATUS='$(VMSTATUS)' OUTPUT='$(OUTPUT)'

VM_SERIES	:= patches/linux-6.12/series
VM_HAVE_SERIES	:= $(shell grep -qv '^[[:space:]]*\(\#.*\)\?$$' $(VM_SERIES) 2>/dev/null && echo 1)
VM_BK_ARGS	:= $(if $(KDIR),--kdir $(KDIR)) $(if $(FLAVOR),--flavor $(FLAVOR))
.PHONY: kernels kernel-stock kernel-patched vmcheck vmshell vmconfig-check bisect-check check-matrix

# make check-matrix: the suite on host, 6.1 stock, Debian's packaged kernel,
# 6.12 stock and patched; a table of invariant verdicts per kernel
# (ci/vm/check-matrix.sh; MATRIX_KERNELS narrows it).
check-matrix: all ## the suite on host, 6.1, Debian's kernel, 6.12 stock and patched: one table
	ci/vm/check-matrix.sh

KVER		?=
kernels: kernel-stock $(if $(KVER),,$(if $(VM_HAVE_SERIES),kernel-patched)) ## build (or take from the cache) the stock and patched 6.12 kernels

kernel-stock: ## build the stock kernel (KVER=6.1: Debian's linux-source-6.1)
	@ci/install-deps.sh --check $(if $(KVER),--kver $(KVER),--vm)
	$(BUILD_KERNEL) $(VM_BK_ARGS) $(if $(KVER),--kver $(KVER))

kernel-patched: ## build 6.12 with patches/linux-6.12/series applied
	@ci/install-deps.sh --check --vm
	$(BUILD_KERNEL) --patched $(VM_BK_ARGS)

# Every prefix of the series compiles (its .c files' objects, -Werror), in a
# copy of the patched kernel's O= tree: ci/kernel/bisect-build.sh.
bisect-check: kernel-patched ## every prefix of the series compiles
	ci/kernel/bisect-build.sh

# KERNEL=both -> stock patched; KBUILD=dir -> its bzImage.
VM_KERNELS = $(if $(KBUILD),$(KBUILD)/arch/x86/boot/bzImage,$(if $(filter both,$(KERNEL)),stock patched,$(KERNEL)))

vmcheck: all ## boot KERNEL=stock|patched|both|... in QEMU and run the suite inside
	@ci/vm/vmcheck.sh $(VM_VARS_ARGS)

vmshell: ## an interactive shell in the guest (KERNEL=stock)
	@bz=$$(ci/vm/vmcheck.sh --print-kernel $(VM_VARS_ARGS)) || exit $(EXIT_ERROR); \
	$(VM_RUN) --kernel $$bz --label shell --interactive --timeout $(VMTIMEOUT) \
		--slow $(VMSLOW) $(VMOPTS) -- '$(if $(filter command line,$(origin VMCMD)),$(VMCMD),bash -i)'

vmconfig-check: ## only check a kernel's config (KERNEL=path or KBUILD=dir)
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
VM_KSRC		:= $(or $(KSRC),$(KDIR),$(or $(FSAIO_SRCCACHE),/var/cache/fsaio/src)/linux-source-6.12)
SELFTEST_FILES	:= Makefile config settings .gitignore fsaio_check.sh fsaio_prereq.c
KSFT_FRAMEWORK	:= $(addprefix tools/testing/selftests/,Makefile lib.mk kselftest.h \
		   kselftest_harness.h kselftest_module.h kselftest run_kselftest.sh) \
		   scripts/subarch.include

.PHONY: selftest-install selftest-tree vmselftest vmselftest-errors

selftest-install: ## copy the kselftest into KSRC=<kernel tree>
	@[ -n "$(KSRC)" ] && [ -f "$(KSRC)/tools/testing/selftests/lib.mk" ] || \
		{ echo "selftest-install: KSRC= must name a kernel tree (with tools/testing/selftests/lib.mk)" >&2; exit $(EXIT_USAGE); }
	@d=$$(cd "$(KSRC)" && pwd)/tools/testing/selftests/fsaio; \
	rm -rf "$$d" && mkdir -p "$$d" && \
	(cd ci/selftests/fsaio && cp -p $(SELFTEST_FILES) "$$d/") && \
	echo "$(CURDIR)" >"$$d/fsaio-root" && \
	echo "selftest-install: $$d (runs $(CURDIR)/fsaio)"

selftest-tree: ## a scratch kselftest tree in KSFT_TREE=<dir> with fsaio's test
	@[ -n "$(KSFT_TREE)" ] || { echo "selftest-tree: KSFT_TREE=<scratch dir>" >&2; exit $(EXIT_USAGE); }
	@[ -f "$(VM_KSRC)/tools/testing/selftests/lib.mk" ] || \
		{ echo "selftest-tree: $(VM_KSRC) has no tools/testing/selftests (KSRC=)" >&2; exit $(EXIT_USAGE); }
	@mkdir -p "$(KSFT_TREE)" && t=$$(cd "$(KSFT_TREE)" && pwd) && \
	(cd "$(VM_KSRC)" && cp -a --parents $(KSFT_FRAMEWORK) "$$t/")
	@$(MAKE) --no-print-directory selftest-install KSRC="$(abspath $(KSFT_TREE))"

# Builds fsaio only when it is missing (like vmcheck, it runs what is built).
vmselftest: ## the kselftest of fsaio in the guest, its KTAP checked by kunit.py
	@[ -x fsaio ] && [ -d $(OUTPUT)/workloads ] || $(MAKE) --no-print-directory all
	@ci/vm/vmselftest.sh $(VM_VARS_ARGS) VM_KSRC='$(VM_KSRC)' VMSELFTEST_ARGS='$(VMSELFTEST_ARGS)'

vmselftest-errors: ## QEMU killed, guest panic, bogus init, timeout: each an ERROR
	@ci/vm/vmselftest.sh --errors $(VM_VARS_ARGS)

# ---- mutation testing -------------------------------------------------------
#   make mutants [MUTANTS='name ...']
#       apply each ci/mutants/*.patch to the cached patched tree, build it
#       incrementally, restore the series, run the suite on the mutant in
#       QEMU; print the kill table and the kill rate (ci/mutants/mutants.sh)
MUTANTS		?=
.PHONY: mutants
mutants: all ## build each ci/mutants patch and run the suite on it: the kill table
	@ci/mutants/mutants.sh $(MUTANTS)
