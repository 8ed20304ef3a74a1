# SPDX-License-Identifier: GPL-2.0
# The database tier (ci/db/db-tier.sh): MariaDB's InnoDB over libaio in the
# guest, under fsaio check, and its crash recovery.
#   make vmdb KERNEL=stock|patched|both|path [NOBUILD=1] [DBARGS='--time 20 ...']
#       boot each kernel with ext4 and xfs scratch disks and run the tier
#       inside; results in .output/vm-db/<label>/ (stdout = its KTAP, db/ =
#       the JSON of each run); exit status as vmcheck
# Included by the top-level Makefile (after ci/vm/vm.mk).
DBCMD	?= ci/db/db-tier.sh
DBARGS	?=

.PHONY: vmdb
vmdb: all ## MariaDB/InnoDB over libaio in QEMU: fsaio check of sysbench runs, crash recovery (KERNEL=...)
	@$(MAKE) --no-print-directory vmcheck VMRESULTS=vm-db VMCMD='$(DBCMD) $(DBARGS)' \
		VMDISKS=ext4,xfs
