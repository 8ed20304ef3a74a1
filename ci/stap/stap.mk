# SPDX-License-Identifier: GPL-2.0
# SystemTap as fsaio's second event source (stap/README.md):
#   make stapcheck [STAP_WORKLOADS='aio_read_batch ...'] [NOBUILD=1]
#       build (or take from the cache) the patched 6.12 kernel of FLAVOR=stap,
#       compile stap/fsaio.stp against it, boot it and trace each workload
#       with SystemTap and with BPF (fsaio check --no-fentry --record); both
#       logs replayed must give the same verdicts and per-engine counts
#       (ci/stap/stap-check.sh, ci/stap/guest-compare.sh).  Results in
#       .output/vm/stap/.  Exit status: stap-check.sh's (0 agree, 1 differ,
#       4 no systemtap, 5 no verdict); make turns it into 2, VMSTATUS=FILE
#       gets it.
# Included by the top-level Makefile (after ci/vm/vm.mk: VMSTATUS).
STAP_WORKLOADS	?=

.PHONY: stapcheck
stapcheck: ## SystemTap and BPF trace the same workloads: the verdicts must agree
	@ci/install-deps.sh --check --vm
	@$(MAKE) --no-print-directory all
	@ci/vm/with-status.sh VMSTATUS='$(VMSTATUS)' ci/stap/stap-check.sh $(if $(NOBUILD),--nobuild) $(STAP_WORKLOADS)
