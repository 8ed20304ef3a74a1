# SPDX-License-Identifier: GPL-2.0
# The crash-replay durability tier (ci/crash/README in ci/README.md):
#   make                  also builds $(OUTPUT)/crash/lw-replay (the log reader)
#   make vmcrash KERNEL=stock|patched|both|path [NOBUILD=1]
#       boot each kernel and run ci/crash/crash-replay.sh inside; results in
#       .output/vm-crash/<label>/ (stdout = its KTAP); exit status as vmcheck
# Included by the top-level Makefile (after ci/vm/vm.mk).
LW_REPLAY	:= $(OUTPUT)/crash/lw-replay
CRASHCMD	?= ci/crash/crash-replay.sh

all: $(LW_REPLAY)

$(LW_REPLAY): ci/crash/lw-replay.c | $(DEPS_STAMP)
	@mkdir -p $(@D) $(OUTPUT)/deps/crash
	$(CC) $(CFLAGS) -MMD -MP -MF $(OUTPUT)/deps/crash/lw-replay.d $< -o $@

# vmcheck with the tier as the command, its own results directory and no
# scratch disks (the tier makes its devices from loop files on tmpfs).
.PHONY: vmcrash
vmcrash: all ## the crash-replay durability tier in QEMU (KERNEL=...)
	@$(MAKE) --no-print-directory vmcheck VMRESULTS=vm-crash VMCMD='$(CRASHCMD)' \
		VMOPTS='--disks none $(VMOPTS)'
