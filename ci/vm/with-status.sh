#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run a command and exit with its status, writing it first to the file named
# by VMSTATUS= (when given): GNU make turns any failing recipe into 2, and
# ci/vm/vm-make.sh reads the real verdict from that file.
#
#   ci/vm/with-status.sh [VMSTATUS=file] CMD [ARG...]
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. "$ROOT/ci/vm/vm-lib.sh"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
[[ ${1:-} == VMSTATUS=* ]] && { VMSTATUS=${1#VMSTATUS=}; shift; }
[[ $# -gt 0 ]] || usage_error "no command to run"
"$@"
vm_status $?
