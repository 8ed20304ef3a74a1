# SPDX-License-Identifier: GPL-2.0
# The device-classes table in markdown, from a part file or bench.json:
#   jq -r -f ci/bench/classes-table.jq .output/bench/parts/device-classes.json
# (docs/benchmarks.md: how to print it for the committed run).
def v($s; $g): (.figures | map(select(.id == "device-classes.\($s).\($g).iops")) | .[0].value) // null;
def f: if . == null then "?" elif . >= 100 then (. | round | tostring) else (. * 10 | round / 10 | tostring) end;
. as $p
| ($p.figures | map(select((.id | startswith("device-classes.")) and (.id | endswith(".iops")))) | map(.group) | unique
   | sort_by(capture("^(?<us>[0-9]+)us\\.(?<w>.*)-qd(?<qd>[0-9]+)$") | [(.us | tonumber), .w, (.qd | tonumber)])) as $G
| "| device | workload | iodepth | stock libaio | patched libaio | io_uring | O_DIRECT | patched / stock |",
  "|---|---|---|---|---|---|---|---|",
  ($G[] as $g | ($g | capture("^(?<us>[0-9]+)us\\.(?<w>.*)-qd(?<qd>[0-9]+)$")) as $c
   | ($p | v("stock-libaio-buffered"; $g)) as $s | ($p | v("patched-libaio-buffered"; $g)) as $pa
   | "| \(($c.us | tonumber) / 1000) ms | \($c.w) | \($c.qd) | \($s | f) | \($pa | f) | \($p | v("stock-io_uring-buffered"; $g) | f) | \($p | v("stock-libaio-direct"; $g) | f) | \(if $s and $pa then ($pa / $s * 100 | round / 100 | tostring) + "x" else "?" end) |")
