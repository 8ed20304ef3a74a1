# SPDX-License-Identifier: GPL-2.0
# fsaio's kselftest under LAVA (ci/README.md "LAVA: make lava-check"):
#   make lava-check [KERNEL=stock|patched|path/to/bzImage]
#                   [LAVA_WORKLOADS='aio_read_batch ...'] [LAVA_TARGETS=fsaio]
#                   (or FSAIO_LAVA_WORKLOADS, FSAIO_LAVA_TARGETS in the environment)
#                   [LAVA_OPTS='--append init=/bin/false ...']
#       run the LAVA job ci/lava/job-fsaio-kselftest.yaml.in on the device
#       ci/lava/device-qemu-9p.yaml.in with lava-run (lava-dispatcher's local
#       runner) and turn LAVA's results into fsaio verdicts
#       (ci/lava/lava-check.sh); results in .output/lava/<release>/.  Only a
#       cached kernel is booted (build-kernel.sh --path): none is built.
#       Builds fsaio only when it is missing (as vmselftest).
#       Exit status: lava-check.sh's (0 pass, 1 fail, 4 all skipped,
#       5 no verdict); make turns it into 2, VMSTATUS=FILE gets it,
#       ci/vm/vm-make.sh lava-check ... exits with it.
# Included by the top-level Makefile (after ci/vm/vm.mk, whose KERNEL,
# VMSTATUS and VM_BK_ARGS it uses).
LAVA_WORKLOADS	?=
LAVA_TARGETS	?=
LAVA_OPTS	?=

.PHONY: lava-check
lava-check: ## fsaio's kselftest as a LAVA job (lava-run), verdicts from LAVA's results
	@ci/install-deps.sh --check --lava
	@[ -x fsaio ] && [ -d $(OUTPUT)/workloads ] || $(MAKE) --no-print-directory all
	@case "$(KERNEL)" in \
	stock) bz=$$($(BUILD_KERNEL) $(VM_BK_ARGS) --path) ;; \
	patched) bz=$$($(BUILD_KERNEL) --patched $(VM_BK_ARGS) --path) ;; \
	*) bz="$(KERNEL)" ;; \
	esac; \
	[ -n "$$bz" ] && [ -f "$$bz" ] || { echo "lava-check: no cached $(KERNEL) kernel (make kernels)" >&2; \
		exec ci/vm/with-status.sh VMSTATUS='$(VMSTATUS)' sh -c 'exit $(EXIT_ERROR)'; }; \
	ci/vm/with-status.sh VMSTATUS='$(VMSTATUS)' ci/lava/lava-check.sh --kernel "$$bz" $(if $(LAVA_TARGETS),--targets '$(LAVA_TARGETS)') \
		$(if $(LAVA_WORKLOADS),--workloads '$(LAVA_WORKLOADS)') $(LAVA_OPTS)
