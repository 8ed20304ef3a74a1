# SPDX-License-Identifier: GPL-2.0
# The benchmark JSON (schema fsaio-bench/1, ci/README.md "Benchmarks"): every
# jq program that builds or reads it for make bench, as one module.  The C
# side (harness/results/: fsaio bench show, bench stats, compare) reads the
# same schema.  Scripts call one def per job, arguments by name:
#
#   jq -L "$ROOT/ci/bench" --arg s "$SCHEMA" --arg p tracer ... \
#      'include "bench"; part_stub($s; $p; $st; $r; $k)'
#
#   section            defs                                  used by
#   fio JSON           fio_ok fio_cpu_s                      bench.sh
#   part files, merge  part_stub carry_over validate_part    bench.sh
#                      host merge with_plots error_parts
#   tracer part        tracer_part fill_notes                bench.sh
#
# A figure's value and stddev come from its samples in `fsaio bench stats`
# (harness/results/stats.c), not from here: the statistics have one
# implementation, shared with `fsaio compare`.

# ------------------------------------------------------------ helpers

# Rounding to 2, 3 or 5 decimals; these fail on null: a missing number in
# the raw results is an error, not a figure.
def r2: . * 100 | round / 100;
def r3: . * 1000 | round / 1000;
def r5: . * 100000 | round / 100000;
# Rounding to 0, 2 or 3 decimals, null staying null (a figure of runs that
# did no I/O).
def r0_or_null: if . == null then null else round end;
def r2_or_null: if . == null then null else . * 100 | round / 100 end;
def r3_or_null: if . == null then null else (. * 1000 | round) / 1000 end;

# ------------------------------------------------------------ fio JSON

# fio ran clean and read something (input: fio --output-format=json).
def fio_ok: .jobs[0].error == 0 and .jobs[0].read.total_ios > 0;

# fio's user+system CPU seconds over its read runtime.
def fio_cpu_s: .jobs[0] | (.usr_cpu + .sys_cpu) / 100 * .read.runtime / 1000;

# ------------------------------------------------------------ part files, merge

# A part file without figures: a part skipped or failed before measuring.
def part_stub($schema; $part; $status; $reason; $kernel):
	{schema: $schema, part: $part, status: $status, reason: $reason, kernel: $kernel,
	 figures: [], ratios: []};

# The part file of $part rebuilt from a merged bench.json (the input), for
# BENCH_BASE; nothing if the input has no such part.
def carry_over($schema; $part):
	(.parts | map(select(.name == $part)) | .[0]) as $m | select($m != null)
	| {schema: $schema, part: $part, status: $m.status, reason: $m.reason, kernel: $m.kernel,
	   seconds: $m.seconds, carried_from: (.generated // null),
	   figures: [.figures[] | select(.part == $part) | del(.part)],
	   ratios: [.ratios[] | select(.part == $part) | del(.part, .met)]};

# Why the part file (the input) named $name cannot be merged; nothing if
# it can.
def validate_part($schema; $name):
	if type != "object" then "not a JSON object"
	elif .schema != $schema then "schema is \(.schema | tojson), not \($schema | tojson)"
	elif .part != $name then "part is \(.part | tojson), file name says \($name | tojson)"
	elif (.figures | type) != "array" or (.ratios | type) != "array" then "figures/ratios are not arrays"
	elif ([.figures[], .ratios[] | select((.id | type) != "string")] | length) > 0 then "an entry without an id"
	else empty end;

# bench.json's "host": the machine the host parts ran on.
def host($kernel; $cpus; $cpu_model; $mem_mib; $virt; $load; $commit; $fio):
	{kernel: $kernel, cpus: $cpus, cpu_model: $cpu_model, mem_mib: $mem_mib, virtualization: $virt,
	 loadavg_at_start: $load, fsaio_commit: $commit, fio: $fio};

# [true or false] whether $v meets the goal $g ("OP NUMBER", OP one of
# <= >= < >), [null] for a null $v; [] if $g does not parse.
def goal_met($v; $g):
	[$g | strings | capture("^\\s*(?<op><=|>=|<|>)\\s*(?<n>[-+0-9.eE]+)\\s*$")
	 | (.n | tonumber) as $n
	 | if $v == null then null elif .op == "<=" then $v <= $n elif .op == ">=" then $v >= $n
	   elif .op == "<" then $v < $n else $v > $n end];

# bench.json from the part files (the inputs, jq -n, in the order to keep):
# figures and ratios tagged with their part, a ratio's "met" recomputed
# from its goal when the goal parses; ids used twice in "duplicate_ids".
def merge($schema; $generated; $command; $host):
	[inputs] as $p
	| {schema: $schema, generated: $generated, command: $command, host: $host,
	   parts: [$p[] | {name: .part, status: (.status // "ok"), reason: (.reason // null),
	                   kernel: (.kernel // null), seconds: (.seconds // null),
	                   figures: (.figures | length), ratios: (.ratios | length)}],
	   figures: [$p[] | .part as $n | .figures[] | {part: $n} + .],
	   ratios: [$p[] | .part as $n | .ratios[] | {part: $n} + .
	            | goal_met(.value; .goal) as $m | if ($m | length) == 1 then .met = $m[0] else . end]}
	| .duplicate_ids = ([.figures[].id, .ratios[].id] | group_by(.) | map(select(length > 1) | .[0]))
	| if (.duplicate_ids | length) == 0 then del(.duplicate_ids) else . end;

# bench.json with the list of plots bench-plot.sh drew (its plots.json).
def with_plots($plots): .plots = $plots;

# The names of the parts that failed, space-separated.
def error_parts: [.parts[] | select(.status == "error") | .name] | join(" ");

# ------------------------------------------------------------ tracer part

# A note's @{figure id[*factor]|r0 or r3}@ becomes that figure's value
# (input: a part file once `fsaio bench stats` has computed the values).
def fill_notes:
	(.figures | map({key: .id, value: .value}) | from_entries) as $v
	| def r($d): if . == null then "?" else (. * $d | round) / $d end;
	  .ratios |= map(if .note then .note |= gsub("@\\{(?<id>[^}*|]+)(?<k>\\*[0-9.]+)?\\|r(?<d>[03])\\}@";
	      . as $c | (if $c.k then ($c.k[1:] | tonumber) else 1 end) as $k
	      | ($v[$c.id] | if . == null then null else . * $k end)
	      | r(if $c.d == "3" then 1000 else 1 end) | tostring)
	    else . end);

# The tracer part file (figures and ratios carry samples; `fsaio bench
# stats` reduces them), from bench.sh's tab-separated files.  $a: the
# named arguments, as jq --arg/--argjson/--rawfile give them:
#   schema kernel seconds       the part file's header
#   runtime pairs size depth nice   the measurement (fio runtime, pairs,
#                               file size, io_uring depth, niceness)
#   gtp gtu gcp gcu gbt         goals: traced psync, traced io_uring, check
#                               psync, check io_uring, bpftrace vs trace
#                               ("" = none)
#   btprog                      the bpftrace one-liner
#   runs   runs.tsv: mode label engine iops ios runtime_ms records lost
#                    tracer_cpu_s fio_cpu_s
#   cmds   commands.tsv: label command
#   prof   profile.tsv: symbol children% (empty: no profile)
def tracer_part($a):
	$a as {$schema, $kernel, $seconds, $runtime, $pairs, $size, $depth, $nice,
	       $gtp, $gtu, $gcp, $gcu, $gbt, $btprog, $runs, $cmds, $prof}
	| def rows($s): $s | split("\n") | map(select(length > 0) | split("\t"));
	(rows($runs) | map({mode: .[0], label: .[1], engine: .[2], iops: (.[3] | tonumber),
	   ios: (.[4] | tonumber), runtime_s: ((.[5] | tonumber) / 1000), records: (.[6] | tonumber),
	   lost: (.[7] | tonumber), tracer_cpu: (.[8] | tonumber), fio_cpu: (.[9] | tonumber)})
	 | map(. + {rate: (if .runtime_s > 0 then .records / .runtime_s else 0 end),
	            cpu_ns: (if .ios > 0 then .fio_cpu * 1e9 / .ios else null end)})) as $r
	| (rows($cmds) | map({key: .[0], value: .[1]}) | from_entries) as $cmd
	| (rows($prof) | map({key: .[0], value: (.[1] | tonumber)}) | from_entries) as $pf
	| {psync: "psync_4k", io_uring: "io_uring_4k_qd\($depth)"} as $grp
	| {psync: "fio psync", io_uring: "fio io_uring iodepth \($depth)"} as $cfg
	| def pairs($e; $m): $r | map(select(.engine == $e and .mode == $m and (.label | test("-(untraced|traced|check|bpftrace)-[0-9]+$"))));
	  def nz: if . == "" then null else . end;
	  {psync: ($gtp | nz), io_uring: ($gtu | nz)} as $gtrace
	| {psync: ($gcp | nz), io_uring: ($gcu | nz)} as $gcheck
	|
	  def fig($id; $metric; $config; $vals; $unit; $cmd):
	    {id: $id, metric: $metric, config: $config, stat: "median", unit: $unit,
	     samples: $vals, kernel: $kernel, command: $cmd};
	  def desc($e): "\($cfg[$e]) 4 KiB randread of a cached \($size) file, 1 job, \($runtime) s runs";
	  def ratio($id; $metric; $num; $den; $vals; $goal; $note):
	    {id: $id, metric: $metric, num: $num, den: $den, stat: "median", digits: 3,
	     samples: [$vals[] | r3_or_null], goal: $goal, note: $note};
	[ "psync", "io_uring" ] as $engines
	| [ $engines[] as $e | pairs($e; "untraced") as $u | pairs($e; "traced") as $t
	    | pairs($e; "check") as $k | pairs($e; "bpftrace") as $b
	    | [range(0; [$u, $t] | map(length) | min)] as $ix
	    | [range(0; [$u, $k] | map(length) | min)] as $kx
	    | [range(0; [$t, $b] | map(length) | min)] as $bx
	    | {e: $e, g: $grp[$e], u: $u, t: $t, k: $k, b: $b,
	       check_pair: [$kx[] | $u[.].cpu_ns / $k[.].cpu_ns],
	       bt_pair: [$bx[] | $u[.].cpu_ns / $b[.].cpu_ns],
	       bt_vs_trace: [$bx[] | $b[.].cpu_ns / $t[.].cpu_ns],
	       pair: [$ix[] | $t[.].iops / $u[.].iops],
	       cpu_pair: [$ix[] | $u[.].cpu_ns / $t[.].cpu_ns],
	       add_cpu: [$ix[] | $t[.].cpu_ns - $u[.].cpu_ns],
	       add_cpu_rec: [$ix[] | ($t[.].records / $t[.].ios) as $rpi
	                     | if $rpi > 0 then ($t[.].cpu_ns - $u[.].cpu_ns) / $rpi else empty end],
	       rec_per_io: ($t | all(.records / .ios > 0.5))} ] as $E
	| ($pf | length > 0) as $haveprof
	| ($r | map(select(.mode == "traced"))) as $tr
	| ($tr | map(select(.lost == 0)) | max_by(.rate)) as $best
	| ($tr | map(select(.lost > 0)) | min_by(.rate)) as $worst
	| (if $best == null then "every traced run lost records"
	   else "highest event rate traced with 0 lost: \($best.rate | round) records/s (\($best.label))"
	        + (if $worst == null then ", no traced run lost any" else ", loss from \($worst.rate | round) records/s" end) end) as $lossline
	| {
	  schema: $schema, part: "tracer", status: "ok", kernel: $kernel, seconds: ($seconds | round),
	  config: {runtime_s: $runtime, pairs: $pairs, file_size: $size, io_uring_depth: $depth, nice: $nice,
	           order: "untraced, fsaio trace, fsaio check, bpftrace, untraced, ... (interleaved tuples)",
	           tracer: "fsaio trace -i 0 (all tasks), attached before fio starts",
	           summary: "value = median of samples; ratios = median of per-pair ratios; stddev = sample standard deviation (fsaio bench stats)"},
	  figures: ([ $E[] | . as $x |
	      fig("tracer.untraced.\(.g).iops"; "throughput"; desc(.e) + ", no tracer";
	          [.u[].iops | r0_or_null]; "IOPS"; $cmd[.u[0].label]),
	      fig("tracer.traced.\(.g).iops"; "throughput"; desc(.e) + ", under fsaio trace";
	          [.t[].iops | r0_or_null]; "IOPS"; $cmd[.t[0].label]),
	      fig("tracer.untraced.\(.g).cpu_ns_per_io"; "cost"; desc(.e) + ", no tracer: fio user+system CPU time per read";
	          [.u[].cpu_ns | r0_or_null]; "ns"; $cmd[.u[0].label]),
	      fig("tracer.traced.\(.g).cpu_ns_per_io"; "cost"; desc(.e) + ", under fsaio trace: fio user+system CPU time per read";
	          [.t[].cpu_ns | r0_or_null]; "ns"; $cmd[.t[0].label]),
	      fig("tracer.traced.\(.g).added_cpu_ns_per_io"; "cost"; desc(.e) + ": fio CPU per read traced - untraced, per pair";
	          [.add_cpu[] | r0_or_null]; "ns"; $cmd[.t[0].label]),
	      (if .rec_per_io then fig("tracer.traced.\(.g).added_cpu_ns_per_record"; "cost"; desc(.e) + ": added CPU ns per read / records per read, per pair";
	          [.add_cpu_rec[] | r0_or_null]; "ns"; $cmd[.t[0].label]) else empty end),
	      fig("tracer.traced.\(.g).records_per_s"; "event_rate"; desc(.e) + ", trace records per second of fio runtime";
	          [.t[].rate | r0_or_null]; "records/s"; $cmd[.t[0].label]),
	      fig("tracer.traced.\(.g).records_per_io"; "records_per_io"; desc(.e);
	          [.t[] | .records / .ios | r3_or_null]; "records"; $cmd[.t[0].label]),
	      fig("tracer.traced.\(.g).consumer_cpu"; "cpu"; desc(.e) + ": CPU time of the fsaio trace process after attaching / fio runtime";
	          [.t[] | .tracer_cpu / .runtime_s * 100 | r3_or_null]; "%CPU"; $cmd[.t[0].label]),
	      fig("tracer.traced.\(.g).lost"; "lost_records"; desc(.e); [.t[].lost]; "records"; $cmd[.t[0].label]),
	      (if (.k | length) > 0 then
	        fig("tracer.check.\(.g).cpu_ns_per_io"; "cost"; desc(.e) + ", under fsaio check -- fio (every event to user space, judged): fio user+system CPU time per read";
	            [.k[].cpu_ns | r0_or_null]; "ns"; $cmd[.k[0].label]),
	        fig("tracer.check.\(.g).records_per_io"; "records_per_io"; desc(.e) + ", under fsaio check";
	            [.k[] | .records / .ios | r3_or_null]; "records"; $cmd[.k[0].label]),
	        fig("tracer.check.\(.g).lost"; "lost_records"; desc(.e) + ", under fsaio check"; [.k[].lost]; "records"; $cmd[.k[0].label])
	       else empty end),
	      (if (.b | length) > 0 then
	        fig("tracer.bpftrace.\(.g).cpu_ns_per_io"; "cost"; desc(.e) + ", under the bpftrace one-liner (io_uring_complete per comm, D-state sleeps per kernel stack): fio user+system CPU time per read";
	            [.b[].cpu_ns | r0_or_null]; "ns"; $cmd[.b[0].label]),
	        fig("tracer.bpftrace.\(.g).consumer_cpu"; "cpu"; desc(.e) + ": CPU time of the bpftrace process after attaching / fio runtime";
	            [.b[] | .tracer_cpu / .runtime_s * 100 | r3_or_null]; "%CPU"; $cmd[.b[0].label])
	       else empty end)
	    ]
	    + ($r | map(select(.label | test("2jobs|rate"))) | map(
	      fig("tracer.traced.sweep_\(.label | sub("^io_uring-"; "")).records_per_s"; "event_rate";
	          "fio io_uring iodepth \($depth) 4 KiB cached randread, \(.label | sub("^io_uring-"; "")), under fsaio trace: \(.iops | round) IOPS, \(.lost) lost";
	          [.rate | r0_or_null]; "records/s"; $cmd[.label])))
	    + [ {id: "tracer.traced.max_lossless.records_per_s", metric: "event_rate",
	            config: (if $best == null then "no traced run without loss"
	                     else "highest records/s of any traced run with 0 lost (\($best.label))"
	                          + (if $worst == null then "; no run lost records: the highest load offered did not find the limit"
	                             else "; loss first seen at \($worst.rate | round) records/s (\($worst.label))" end) end),
	            value: (if $best == null then null else ($best.rate | round) end), unit: "records/s",
	            samples: [], stddev: null, kernel: $kernel,
	            command: (if $best == null then null else $cmd[$best.label] end)} ]
	    + (if $haveprof | not then [] else
	       [ ["bpf_programs_pct", "trace_call_bpf", "fio CPU samples inside the BPF programs (trace_call_bpf, children)"],
	         ["ringbuf_wakeup_pct", "irq_work_queue", "fio CPU samples in ring-buffer wakeups (irq_work_queue: a self-IPI)"],
	         ["syscall_tracepoint_pct", "syscall_trace_enter", "fio CPU samples in the syscall-entry tracepoint slow path (syscall_trace_enter)"] ]
	       | map(. as [$m, $sym, $what] |
	           {id: "tracer.profile.\($grp.io_uring).\($m)", metric: "profile",
	            config: "perf record -e cpu-clock -g of one traced \($cfg.io_uring) run: \($what)",
	            value: ($pf[$sym] // 0), unit: "%", samples: [], stddev: null, kernel: $kernel,
	            command: "perf record -e cpu-clock -F 1999 -g -- fio ... (under fsaio trace)"}) end)),
	  ratios: [ $E[] | . as $x
	    | ratio("tracer.\(.g).traced_over_untraced"; "throughput_ratio";
	            "tracer.traced.\(.g).iops"; "tracer.untraced.\(.g).iops"; .pair; null;
	            "wall-clock IOPS traced / untraced, median of \(.pair | length) adjacent pairs; on a shared machine this moves with the neighbours, see cpu_traced_over_untraced"),
	      ratio("tracer.\(.g).cpu_traced_over_untraced"; "throughput_ratio";
	            "tracer.untraced.\(.g).cpu_ns_per_io"; "tracer.traced.\(.g).cpu_ns_per_io"; .cpu_pair; $gtrace[.e];
	            (if .e == "psync" then
	               "fio CPU per read untraced / traced = the throughput ratio on a CPU of its own. pread makes no trace records (@{tracer.traced.\(.g).records_per_io|r3}@ per read, from other tasks); what is left is what every syscall pays while fsaio attaches syscalls:* tracepoints (syscall_trace_enter/exit slow path): @{tracer.traced.\(.g).added_cpu_ns_per_io|r0}@ ns per read"
	             else
	               "Tracing cost: fio CPU per read untraced / traced = the throughput ratio on a CPU of its own. Requests are counted in the kernel (bpf/fsaio_agg.h): @{tracer.traced.\(.g).records_per_io|r3}@ ring-buffer records per read (@{tracer.check.\(.g).records_per_io|r3}@ under fsaio check); tracing adds @{tracer.traced.\(.g).added_cpu_ns_per_io|r0}@ ns of CPU per read (@{tracer.traced.\(.g).added_cpu_ns_per_record|r0}@ ns per record) where 3% would allow @{tracer.untraced.\(.g).cpu_ns_per_io*0.03|r0}@ ns"
	               + (if $haveprof then "; perf: \($pf["trace_call_bpf"] // 0)% of the traced fio CPU is in BPF programs, \($pf["irq_work_queue"] // 0)% in ring-buffer wakeups (irq_work self-IPI: an APIC write, a VM exit in a guest), \($pf["syscall_trace_enter"] // 0)% in the syscall tracepoint entry path" else "" end)
	               + "; \($lossline)"
	             end)),
	      (if (.check_pair | length) > 0 then
	        ratio("tracer.\(.g).cpu_check_over_untraced"; "throughput_ratio";
	              "tracer.untraced.\(.g).cpu_ns_per_io"; "tracer.check.\(.g).cpu_ns_per_io"; .check_pair; $gcheck[.e];
	              "fio CPU per read untraced / under fsaio check -- fio (every event judged; plain io_uring lifecycles folded in the kernel, bpf/fsaio_fold.h: @{tracer.check.\(.g).records_per_io|r3}@ records per read)")
	       else empty end),
	      (if (.bt_pair | length) > 0 then
	        ratio("tracer.\(.g).cpu_bpftrace_over_untraced"; "throughput_ratio";
	              "tracer.untraced.\(.g).cpu_ns_per_io"; "tracer.bpftrace.\(.g).cpu_ns_per_io"; .bt_pair; null;
	              "fio CPU per read untraced / under the bpftrace one-liner: \($btprog | gsub("\n"; " "))"),
	        ratio("tracer.\(.g).cpu_bpftrace_over_fsaio_trace"; "cost_ratio";
	              "tracer.bpftrace.\(.g).cpu_ns_per_io"; "tracer.traced.\(.g).cpu_ns_per_io"; .bt_vs_trace; $gbt;
	              "fio CPU per read under bpftrace / under fsaio trace, per adjacent tuple: >= 1 means fsaio trace costs no more than the one-liner a user would pick instead (which counts less: no submits, no retries, no sleep contexts)")
	       else empty end) ]
	};

