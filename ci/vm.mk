# SPDX-License-Identifier: GPL-2.0
# Kernel builds and QEMU runs; included by the top-level Makefile.
#
#   make kernels [KDIR=tree] [FLAVOR=debug]
#       build the stock kernel, and the patched one when
#       patches/linux-6.12/series lists patches (ci/build-kernel.sh)
#   make vmcheck KERNEL=stock|patched|both|path/to/bzImage [FLAVOR=debug]
#                [KBUILD=built-tree] [VMCMD='...'] [VMSLOW=ms] [VMTIMEOUT=s]
#       boot each kernel under QEMU (ci/vm-run.sh) and run VMCMD inside;
#       results in .output/vm/<label>/ (stdout = KTAP, fsaio.json, dmesg,
#       console.log, splats, result).  Exit status: the worst verdict.
#   make vmshell [KERNEL=stock]      interactive shell in the guest
#   make vmconfig-check KERNEL=path|KBUILD=dir   only check a kernel's config
#
# Variables: KDIR (kernel source, default the Debian 6.12 tree), FLAVOR
# (debug), KERNEL, KBUILD, VMCMD (guest command; @OUT@ = the guest's view of
# the results dir), VMLABEL (results label for KERNEL=path, default the
# kernel's release string), VMSLOW (dm-delay ms on the scratch disks), VMTIMEOUT,
# VMOPTS (extra ci/vm-run.sh options), NOBUILD=1 (use cached kernels only),
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
# KASAN's shadow memory and lockdep want more room.
VM_DEBUG_OPTS	:= $(if $(filter debug,$(FLAVOR)),--mem 3G)

.PHONY: kernels kernel-stock kernel-patched vmcheck vmshell vmconfig-check

kernels: kernel-stock $(if $(VM_HAVE_SERIES),kernel-patched)

kernel-stock:
	ci/install-deps.sh --vm
	ci/build-kernel.sh $(VM_BK_ARGS)

kernel-patched:
	ci/install-deps.sh --vm
	ci/build-kernel.sh --patched $(VM_BK_ARGS)

# vm_kernel stock|patched|PATH: print the bzImage path (building unless NOBUILD).
define vm_kernel_sh
vm_kernel() { \
	case $$1 in \
	stock|patched) \
		p=; [ $$1 = patched ] && p=--patched; \
		if [ -n "$(NOBUILD)" ]; then \
			ci/build-kernel.sh $$p $(VM_BK_ARGS) --path || \
			{ echo "vmcheck: no cached $$1 kernel (run make kernels)" >&2; return 1; }; \
		else \
			ci/build-kernel.sh $$p $(VM_BK_ARGS); \
		fi ;; \
	*) [ -f "$$1" ] || { echo "vmcheck: no such kernel $$1" >&2; return 1; }; echo "$$1" ;; \
	esac; \
}
endef

# KERNEL=both -> stock patched; KBUILD=dir -> its bzImage.
VM_KERNELS = $(if $(KBUILD),$(KBUILD)/arch/x86/boot/bzImage,$(if $(filter both,$(KERNEL)),stock patched,$(KERNEL)))

# Verdict ranking for the exit status: ERROR (2) > FAIL (1, other) > SKIP (4) > PASS.
vmcheck:
	@$(vm_kernel_sh); \
	err=0; fail=0; skip=0; summary=; \
	for k in $(VM_KERNELS); do \
		case $$k in \
		stock|patched) label=$$k$(VM_SUFFIX); \
			if [ $$k = patched ] && [ -z "$(VM_HAVE_SERIES)" ]; then \
				echo "vmcheck: $(VM_SERIES) lists no patches" >&2; err=1; \
				summary="$$summary\n  $$label: ERROR (no patch series)"; continue; fi ;; \
		*) label=; \
			ci/build-kernel.sh --check-kernel $$k $(if $(KBUILD),--kbuild $(KBUILD)) || \
			{ err=1; summary="$$summary\n  $$k: ERROR (kernel lacks required options)"; continue; } ;; \
		esac; \
		bz=$$(vm_kernel $$k) && [ -f "$$bz" ] || \
			{ err=1; summary="$$summary\n  $$k: ERROR (no kernel: not built or build failed)"; continue; }; \
		[ -n "$$label" ] || label=$(or $(VMLABEL),$$(ci/vm-run.sh --print-release --kernel $$bz)$(VM_SUFFIX)); \
		out=$(CURDIR)/$(OUTPUT)/vm/$$label; \
		echo "vmcheck: $$label: $$bz -> $$out" >&2; \
		ci/vm-run.sh --kernel $$bz --label $$label --out $$out \
			--timeout $(VMTIMEOUT) --slow $(VMSLOW) $(VM_DEBUG_OPTS) $(VMOPTS) -- '$(VMCMD)'; \
		case $$? in 0) ;; 2) err=1 ;; 4) skip=1 ;; *) fail=1 ;; esac; \
		ln -sfn stdout $$out/results.ktap; \
		summary="$$summary\n  $$label: $$(cat $$out/result 2>/dev/null || echo 'ERROR (no result)')"; \
	done; \
	printf "vmcheck summary:$$summary\n" >&2; \
	[ $$err = 1 ] && exit 2; [ $$fail = 1 ] && exit 1; [ $$skip = 1 ] && exit 4; exit 0

vmshell:
	@$(vm_kernel_sh); \
	bz=$$(vm_kernel $(firstword $(VM_KERNELS))) || exit 2; \
	ci/vm-run.sh --kernel $$bz --label shell --interactive --timeout $(VMTIMEOUT) \
		--slow $(VMSLOW) $(VMOPTS) -- '$(if $(filter command line,$(origin VMCMD)),$(VMCMD),bash -i)'

vmconfig-check:
	ci/build-kernel.sh --check-kernel $(firstword $(VM_KERNELS)) $(if $(KBUILD),--kbuild $(KBUILD))
