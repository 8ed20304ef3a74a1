#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The transfer_overlay download_command of the local LAVA job
# (ci/lava/lava-check.sh): LAVA types
#
#   ci/lava/lava-fetch.sh http://DISPATCHER/tmp/JOB/.../overlay-N.tar.gz
#
# on the guest's shell and expects the file in the current directory.  The
# guest's root is the host's / over 9p, so the overlay LAVA made in its
# download directory is already there: copy it from
# /var/lib/lava/dispatcher/tmp/JOB/... instead of fetching it over the
# network (the guest has none; a lab's device uses wget or curl here).
# Exit status: cp's.
url=$1
case $url in
http://*/tmp/*) path=/var/lib/lava/dispatcher/tmp/${url#http://*/tmp/} ;;
*) echo "lava-fetch: not a LAVA overlay URL: $url" >&2; exit 64 ;;
esac
cp "$path" . && echo "lava-fetch: $path"
