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
#   fio JSON           fio_ok fio_cpu_s                      bench.sh, bench-vm.sh
#   part files, merge  part_stub carry_over validate_part    bench.sh
#                      host merge with_plots error_parts
#   tracer part        tracer_part fill_notes                bench.sh
#   load part          load_row load_green load_part         bench.sh
#                      load_table (markdown)                 docs
#   goals              goals with_goals                      bench.sh
#                      goals_table (markdown)                README.md, docs
#   VM part files      vm_part                               bench-vm.sh
#   syncpath           syncpath_row syncpath_figures         bench-vm.sh
#                      syncpath_ratios syncpath_extra
#   fsaio-table        table_row table_xcheck_row            bench-vm.sh
#                      table_figures table_ratios table_cdf
#                      table_xcheck table_xcheck_figures
#                      table_extra
#   device-classes     classes_row classes_figures           bench-vm.sh
#                      classes_ratios classes_extra
#                      classes_table (markdown)              classes-table.jq, docs
#   database           database_row database_figures         bench-vm.sh
#                      database_ratios database_extra
#                      database_table (markdown)             database-table.jq, docs
#   stap-cost          stapcost_row stapcost_figures         bench-vm.sh
#                      stapcost_ratios stapcost_extra
#   plots              plot_part_reason plot_pivot           bench-plot.sh
#                      plot_first_unit plot_tracer_title
#                      plot_slat_cdfs plot_classes
#                      plot_syncpath_vs_stock plot_list
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
# from its goal when the goal parses (and put last, so that merging a
# carried-over part gives the same bytes as merging it fresh); ids used
# twice in "duplicate_ids".
def merge($schema; $generated; $command; $host):
	[inputs] as $p
	| {schema: $schema, generated: $generated, command: $command, host: $host,
	   parts: [$p[] | {name: .part, status: (.status // "ok"), reason: (.reason // null),
	                   kernel: (.kernel // null), seconds: (.seconds // null),
	                   figures: (.figures | length), ratios: (.ratios | length)}],
	   figures: [$p[] | .part as $n | .figures[] | {part: $n} + .],
	   ratios: [$p[] | .part as $n | .ratios[] | {part: $n} + .
	            | goal_met(.value; .goal) as $m | if ($m | length) == 1 then del(.met) | .met = $m[0] else . end]}
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

# ------------------------------------------------------------ load part

# One program's run under `fsaio check -j FILE -- CMD` beside the load
# (input: that JSON file, or null when it wrote none).  $a: factor name
# engine shape rc seconds loadavg command.  records_sent = records the
# checker was fed + records lost (what the BPF side tried to send);
# requests = submitted, both engines; failed_checks: the checks that FAILed
# or were ERROR.
def load_row($a):
	$a as {$factor, $name, $engine, $shape, $rc, $seconds, $loadavg, $command}
	| (if type == "object" then . else null end) as $j
	| ($j.runs[0] // null) as $run
	| {factor: $factor, program: $name, engine: $engine, shape: $shape, command: $command,
	   exit: $rc, seconds: $seconds, loadavg_1m: $loadavg,
	   verdict: ($j.verdict // "no result")}
	+ (if $run == null then {records: null, lost: null, lost_by_cause: null, records_sent: null,
	                         requests: null, records_counted_in_kernel: null, records_per_request: null,
	                         failed_checks: []}
	   else ($j.engines.libaio.submitted + $j.engines.io_uring.submitted) as $req
	   | {records: $run.records, lost: $j.lost_events,
	      lost_by_cause: ($j.lost_by_cause | with_entries(select(.value != 0))),
	      records_sent: ($run.records + $j.lost_events), requests: $req,
	      records_counted_in_kernel: $run.records_counted_in_kernel,
	      records_per_request: (if $req > 0 then ($run.records + $j.lost_events) / $req | r5 else null end),
	      failed_checks: [$run.invariants[] | select(.verdict == "fail" or .verdict == "error") | .name]}
	   end);

# A run is green when it has a result, lost nothing and no check FAILed or
# was ERROR, save the nonblocking_submit_* checks: whether a kernel slept
# in submit is the kernel's behaviour (as e2e fio_examples judges it).
def load_green:
	.lost == 0 and .verdict != "error" and .verdict != "no result"
	and all(.failed_checks[]; startswith("nonblocking_submit_"));

# The load part file.  $a: schema kernel seconds cpus warmup relay (the
# relayed command), rows (load_row objects), relays ({factor, round,
# bare_s, check_s, exit, verdict, lost, command_s}), samples ([{factor, rows: [[1-min
# load average, runnable tasks]...]}]).  Figures with "stat" are reduced by
# `fsaio bench stats`; a run's counts are single values.
def load_part($a):
	$a as {$schema, $kernel, $seconds, $cpus, $warmup, $relay, $rows, $relays, $samples}
	| ($rows | map(.factor) | unique) as $factors
	| def load_desc($f): "stress-ng --cpu \($f * $cpus) --iomix \($cpus) on \($cpus) CPUs (factor \($f))";
	{schema: $schema, part: "load", status: "ok", kernel: $kernel, seconds: ($seconds | round),
	 config: {cpus: $cpus, warmup_s: $warmup, factors: $factors, relay: $relay},
	 figures: (
	   [ $samples[] | .factor as $f
	     | {id: "load.x\($f).loadavg_1m", metric: "load", unit: "load",
	        config: "1-minute load average, sampled every second under \(load_desc($f))",
	        stat: "mean", digits: 2, samples: [.rows[][0]], kernel: $kernel, command: "cat /proc/loadavg"},
	       {id: "load.x\($f).runnable", metric: "load", unit: "tasks",
	        config: "runnable tasks (the sampler not counted), sampled every second under \(load_desc($f))",
	        stat: "mean", digits: 2, samples: [.rows[][1]], kernel: $kernel, command: "cat /proc/loadavg"} ]
	   + [ $rows[] |
	       {id: "load.x\(.factor).\(.program).lost", metric: "lost_records", unit: "records",
	        config: "\(.shape), under fsaio check beside \(load_desc(.factor))",
	        value: .lost, samples: (if .lost == null then [] else [.lost] end), stddev: null,
	        kernel: $kernel, command: .command,
	        engine: .engine, verdict: .verdict, green: load_green, failed_checks: .failed_checks,
	        exit: .exit, lost_by_cause: .lost_by_cause, records: .records, records_sent: .records_sent,
	        requests: .requests, records_counted_in_kernel: .records_counted_in_kernel,
	        seconds: .seconds, loadavg_1m: .loadavg_1m},
	       {id: "load.x\(.factor).\(.program).records_per_request", metric: "records_per_request",
	        unit: "records", engine: .engine, records_sent: .records_sent, requests: .requests,
	        config: "records sent (fed to the checker + lost) / requests submitted: \(.records_sent // "?") / \(.requests // "?")",
	        value: .records_per_request, samples: (if .records_per_request == null then [] else [.records_per_request] end),
	        stddev: null, kernel: $kernel, command: .command} ]
	   + [ $factors[] as $f | ($relays | map(select(.factor == $f))) as $r | select(($r | length) > 0)
	       | {id: "load.x\($f).relay.bare_s", metric: "wall_time", unit: "s",
	          config: "sh -c '\($relay)' | cat >/dev/null beside \(load_desc($f))",
	          stat: "median", digits: 3, samples: [$r[].bare_s], kernel: $kernel,
	          command: "sh -c '\($relay)' | cat >/dev/null"},
	         {id: "load.x\($f).relay.check_s", metric: "wall_time", unit: "s",
	          config: "fsaio check -- sh -c '\($relay)' >/dev/null (its stdout relayed by fsaio) beside \(load_desc($f)); verdicts \($r | map(.verdict) | join(", ")), lost \($r | map(.lost // "?" | tostring) | join(", "))",
	          stat: "median", digits: 3, samples: [$r[].check_s], kernel: $kernel,
	          verdicts: [$r[].verdict], lost: [$r[].lost], exits: [$r[].exit],
	          command: "fsaio check -j FILE -- sh -c '\($relay)' >/dev/null"},
	         {id: "load.x\($f).relay.check_command_s", metric: "wall_time", unit: "s",
	          config: "the command's own wall time under fsaio check (runs[0].wall_seconds: from its start to its exit, fsaio's setup and report not counted) beside \(load_desc($f))",
	          stat: "median", digits: 3, samples: [$r[].command_s | numbers], kernel: $kernel,
	          command: "fsaio check -j FILE -- sh -c '\($relay)' >/dev/null"} ]),
	 ratios: [ $factors[] as $f | ($relays | map(select(.factor == $f))) as $r | select(($r | length) > 0)
	   | {id: "load.x\($f).relay.check_over_bare", metric: "time_ratio",
	      num: "load.x\($f).relay.check_s", den: "load.x\($f).relay.bare_s", stat: "median", digits: 3,
	      samples: [$r[] | .check_s / .bare_s | r3], goal: "<= 1.5",
	      note: "wall time of fsaio check relaying the command's stdout / the bare pipeline through cat, per round, beside \(load_desc($f))"} ]};

# ------------------------------------------------------------ goals

# The goals of a loaded machine, each computed from the merged figures and
# ratios (input: bench.json without "goals"): figure, was (before the
# kernel-side decisions), now, goal, met (true, false, or null: not
# measured, wholly or in part), distance (what is missing, in words), from
# (the ids read).  Nothing here is typed in but the goals and the "was".
def goals:
	def commas: if length <= 3 then . else (.[:-3] | commas) + "," + .[-3:] end;
	def fmt: if . == null then "?" elif type == "number" and . == floor and . >= 0 then tostring | commas
	         else tostring end;
	def sd: if .stddev == null then "" else " ± \(.stddev)" end;
	def fac: .id | capture("^load\\.x(?<f>[0-9]+)\\.").f | tonumber;
	def nm: {met: null, distance: "not measured", now: "not measured"};
	. as $b
	| ($b.figures // []) as $F | ($b.ratios // [])as $R
	| def ratio($id): $R | map(select(.id == $id)) | .[0];
	  def lostfig: $F | map(select(.part == "load" and .metric == "lost_records"));
	[
	  # 1. the SQPOLL fio job
	  ( [lostfig[] | select(.id | test("^load\\.x[0-9]+\\.fio-uring-sqpoll\\.lost$"))] as $s
	  | {figure: "records lost, fio SQPOLL job under `check`, 2 cores busy", was: "6,551,143", goal: "0",
	     from: [$s[].id]}
	  + if ($s | length) == 0 then nm
	    else ([$s[].value] | if any(. == null) then null else add end) as $tot
	    | {now: "\($tot | fmt) (\($s | map("\(fac)x: \(.value | fmt)") | join(", ")))",
	       met: (if $tot == null then null else $tot == 0 end),
	       distance: (if $tot == null then "a run wrote no result" elif $tot == 0 then null
	                  else "\($tot | fmt) records lost" end)} end ),
	  # 2. the corpus and fio jobs at 2x; the e2e tier is make check-load's
	  ( [lostfig[] | select(fac == 2)] as $s
	  | {figure: "records lost, host e2e + corpus under stress-ng at 2x cores", was: "e2e failed",
	     goal: "0, all green", from: [$s[].id]}
	  + if ($s | length) == 0 then nm
	    else ([$s[].value] | if any(. == null) then null else add end) as $tot
	    | ([$s[] | select(.green | not) | .id | split(".")[2]]) as $red
	    | {now: "corpus + fio jobs: \($tot | fmt) lost, \(($s | length) - ($red | length)) of \($s | length) green; host e2e tier: `make check` runs it beside the load, not measured here",
	       met: (if $tot != null and $tot > 0 or ($red | length) > 0 then false else null end),
	       distance: ([if $tot == null then "a run wrote no result" elif $tot > 0 then "\($tot | fmt) records lost" else empty end,
	                   if ($red | length) > 0 then "not green: \($red | join(", "))" else empty end,
	                   "the host e2e tier is judged by make check, not measured by make bench"] | join("; "))} end ),
	  # 3. the stdout relay, the worst factor
	  ( [$R[] | select(.id | test("^load\\.x[0-9]+\\.relay\\.check_over_bare$"))] as $s
	  | ([$F[] | select(.id | test("^load\\.x[0-9]+\\.relay\\.check_s$"))]) as $c
	  | {figure: "stdout relay of `yes | head -c 1G` under `check`", was: "300 s, ERROR",
	     goal: "within 1.5x of bare", from: ([$s[].id] + [$c[].id])}
	  + if ($s | length) == 0 then nm
	    else ($s | max_by(.value)) as $w
	    | ($w.num | sub("check_s$"; "check_command_s")) as $cmd
	    | ($F | map(select(.id == $w.num or .id == $w.den or .id == $cmd)) | map({key: .id, value: .value}) | from_entries) as $t
	    | ([$c[] | .verdicts[]] | map(select(. != "pass")) | unique) as $bad
	    | {now: ("\($w.value)x (worst, \($w | fac)x load: \($t[$w.num]) s vs \($t[$w.den]) s bare"
	             + (if $t[$cmd] != null then ", the command itself \($t[$cmd]) s" else "" end)
	             + "); \($s | map("\(fac)x: \(.value)x") | join(", "))"
	             + (if ($bad | length) > 0 then "; verdicts \($bad | join(", "))" else "" end)),
	       met: ($w.value <= 1.5 and ($bad | length) == 0),
	       distance: ([if $w.value > 1.5 then "\($w.value / 1.5 | r2)x the goal at \($w | fac)x load" else empty end,
	                   if ($bad | length) > 0 then "verdicts \($bad | join(", "))" else empty end]
	                  | if length == 0 then null else join("; ") end)} end ),
	  # 4. records per request over the io_uring programs, the worst
	  ( [$F[] | select(.part == "load" and .metric == "records_per_request" and .engine == "io_uring")] as $s
	  | ([$s[] | select(.value != null)]) as $v
	  | {figure: "records per request, `check`, any io_uring shape (multishot/F_MORE, timeouts, link timeouts, cancellation, links and failed chains, CQE_SKIP, CQ overflow, SQPOLL, io-wq punts)",
	     was: "1-3", goal: "< 0.01", from: [$s[].id]}
	  + if ($v | length) == 0 then nm
	    else ($v | max_by(.value)) as $w
	    | ($v | map(select(.value >= 0.01)) | map(.id | split(".")[2]) | unique) as $above
	    | {now: "\($w.value) (worst: \($w.id | split(".")[2]) at \($w | fac)x, \($w.records_sent | fmt) records for \($w.requests | fmt) requests); \(($v | length) - ($v | map(select(.value >= 0.01)) | length)) of \($v | length) runs < 0.01",
	       met: ($w.value < 0.01),
	       distance: (if $w.value < 0.01 then null
	                  else "above 0.01: \($above | join(", "))"
	                       + (if ($v | length) < ($s | length) then "; some runs wrote no result" else "" end) end)} end ),
	  # 5. the tracer's CPU per read, trace and check
	  ( ratio("tracer.io_uring_4k_qd8.cpu_traced_over_untraced") as $t
	  | ratio("tracer.io_uring_4k_qd8.cpu_check_over_untraced") as $k
	  | {figure: "CPU per read untraced/traced, io_uring 4K QD8: trace / check", was: "0.871 / 0.671",
	     goal: ">= 0.95 / >= 0.90", from: [$t.id, $k.id | select(. != null)]}
	  + if $t.value == null or $k.value == null then nm
	    else {now: "\($t.value)\($t | sd) / \($k.value)\($k | sd)",
	          met: ($t.value >= 0.95 and $k.value >= 0.90),
	          distance: ([if $t.value < 0.95 then "trace \(0.95 - $t.value | r3) short" else empty end,
	                      if $k.value < 0.90 then "check \(0.90 - $k.value | r3) short" else empty end]
	                     | if length == 0 then null else join(", ") end)} end ),
	  # 6. the bpftrace one-liner against fsaio trace
	  ( ratio("tracer.io_uring_4k_qd8.cpu_bpftrace_over_fsaio_trace") as $r
	  | {figure: "bpftrace one-liner vs `fsaio trace`", was: "1.048", goal: ">= 1.0 (keep)",
	     from: [$r.id | select(. != null)]}
	  + if $r.value == null then nm
	    else {now: "\($r.value)\($r | sd)", met: ($r.value >= 1.0),
	          distance: (if $r.value >= 1.0 then null else "\(1.0 - $r.value | r3) short" end)} end )
	]
	| map({figure, was, now, goal, met, distance,
	       result: (if .met == true then "met" elif .met == false then "missed: \(.distance)"
	                elif .now == "not measured" then "not measured" else "open: \(.distance)" end),
	       from});

# The goals as a markdown table (input: bench.json), for README.md and
# docs/benchmarks.md (tests/bench/bench-jq.sh holds them to it).
def goals_table:
	def cell: tostring | gsub("\\|"; "\\|");
	"| figure | was | now | goal | result |",
	"|---|---|---|---|---|",
	(.goals[] | "| \(.figure | cell) | \(.was | cell) | \(.now | cell) | \(.goal | cell) | \(.result | cell) |");

# The load part as a markdown table (input: bench.json or the load part
# file): one row per program, per factor its records lost, verdict and
# records per request; then the load observed and the relay.
def load_table:
	def cell: tostring | gsub("\\|"; "\\|");
	[.figures[] | select(.id | startswith("load."))] as $f
	| ($f | map(select(.metric == "lost_records"))) as $l
	| ($f | map(select(.metric == "records_per_request")) | map({key: .id, value: .value}) | from_entries) as $rpr
	| ($l | map(.id | capture("^load\\.x(?<f>[0-9]+)\\.").f | tonumber) | unique) as $F
	| ($l | map(.id | split(".")[2]) | reduce .[] as $p ([]; if index([$p]) then . else . + [$p] end)) as $P
	| def v($id): ($f | map(select(.id == $id)) | .[0].value);
	  "| program | what it exercises | " + ($F | map("\(.)x load: lost, verdict, records/request") | join(" | ")) + " |",
	  "|---|---|" + ($F | map("---|") | join("")),
	  ($P[] as $p | ($l | map(select(.id | split(".")[2] == $p))) as $r
	   | "| \($p) | \($r[0].config | sub(", under fsaio check beside.*$"; "") | cell) | "
	     + ($F | map(. as $x | ($r | map(select(.id == "load.x\($x).\($p).lost")) | .[0]) as $g
	         | if $g == null then "-" else
	           "\($g.value // "?"), \($g.verdict)\(if $g.green then "" else " (not green)" end), \($rpr["load.x\($x).\($p).records_per_request"] // "?")" end)
	       | join(" | ")) + " |"),
	  "| load average (1 min), runnable tasks | mean of the per-second samples | "
	     + ($F | map("\(v("load.x\(.).loadavg_1m") // "?"), \(v("load.x\(.).runnable") // "?")") | join(" | ")) + " |",
	  "| relay of `yes \\| head -c 1G` | median s under check / bare | "
	     + ($F | map("\(v("load.x\(.).relay.check_s") // "?") / \(v("load.x\(.).relay.bare_s") // "?")") | join(" | ")) + " |";

# bench.json with its goals computed (input: merge's output).
def with_goals: .goals = goals;

# ------------------------------------------------------------ VM part files

# The VM parts' I/O configurations (table-guest.sh, classes-guest.sh).
def vm_config_desc:
	{"libaio-buffered": "libaio buffered",
	 "libaio-buffered-async0": "libaio buffered, fs.aio-buffered-async=0 (control)",
	 "io_uring-buffered": "io_uring buffered", "libaio-direct": "libaio O_DIRECT"}[.];

# A VM part file: the header, figures and ratios, and the part's own extra
# fields ($extra: method, raw file names, ...).  $reason "" = none.
def vm_part($schema; $part; $status; $reason; $seconds; $kernel; $figures; $ratios; $extra):
	{schema: $schema, part: $part, status: $status, reason: (if $reason == "" then null else $reason end),
	 seconds: $seconds, kernel: $kernel, figures: $figures, ratios: $ratios} + $extra;

# ------------------------------------------------------------ syncpath

# One measurement of syncpath.c (a line of the guest's syncpath.jsonl)
# with where it ran; its tag "CONFIG.pPASS" gives the configuration:
# "stock" on the patched kernel is the patched kernel without the sysctl.
def syncpath_row($kind; $boot; $release; $vm_command):
	(.tag | split(".")) as $t
	| . + {kind: $kind, boot: $boot, release: $release, vm_command: $vm_command,
	       pass: ($t[1] | ltrimstr("p") | tonumber),
	       cfg: (if $t[0] == "stock" then (if $kind == "stock" then "stock" else "patched-nosysctl" end)
	             else "patched-" + $t[0] end)};

# The syncpath figures (input: every syncpath_row, slurped): per
# configuration and operation, instructions per operation (.insn) and the
# loop's time per operation (.loop), one sample per boot and pass.
def syncpath_figures:
	def opdesc: {pread4k: "cached 4 KiB pread", pread64k: "cached 64 KiB pread",
	             cold4k: "cold 4 KiB pread (page dropped with POSIX_FADV_DONTNEED before each)",
	             write4k: "buffered 4 KiB pwrite to a cached, allocated file"}[.];
	def cfgdesc: {stock: "stock kernel", "patched-async0": "patched kernel, fs.aio-buffered-async=0",
	              "patched-async1": "patched kernel, fs.aio-buffered-async=1",
	              "patched-nosysctl": "patched kernel without the sysctl"}[.];
	def cmd: "ci/bench/bench-vm.sh --parts syncpath --kernels \(if .cfg == "stock" then "stock" else "patched" end)";
	group_by(.cfg + "|" + .op) | map(sort_by(.boot, .pass)) | map(
	  .[0] as $f | ($f.op == "cold4k") as $cold |
	  (map(.med)) as $s |
	  (map(if $cold then .cpu_ns else .mono_ns end)) as $l |
	  {id: "syncpath.\($f.cfg).\($f.op).insn", series: $f.cfg, group: $f.op,
	   metric: (if $cold then "instructions per cold read: median over the reads of the thread CPU time around pread (1 ns = 1 instruction under -icount); the device wait (dm-delay 50 ms) and the loop device worker are not on this thread"
	            else "instructions per operation: median over N of the rdtsc delta around the syscall (1 tick = 1 instruction under -icount), minus an empty rdtsc pair: the uninterrupted path" end),
	   config: "\($f.cfg | cfgdesc); \($f.op | opdesc)",
	   stat: "mean", digits: 3, unit: "instructions", samples: $s, spread_pct: null,
	   samples_are: "\(length) runs: boot-major, pass-minor (\(map("b\(.boot)p\(.pass)") | join(" ")))",
	   kernel: $f.release, command: ($f | cmd), vm_command: $f.vm_command},
	  {id: "syncpath.\($f.cfg).\($f.op).loop", series: $f.cfg, group: $f.op,
	   metric: (if $cold then "thread CPU ns per fadvise(DONTNEED)+pread, loop of N (= instructions under -icount, incl. interrupts on this thread)"
	            else "CLOCK_MONOTONIC ns per op over N back-to-back ops (= instructions under -icount, incl. timer ticks and other interrupts)" end),
	   config: "\($f.cfg | cfgdesc); \($f.op | opdesc)",
	   stat: "mean", digits: 3, unit: "virtual ns", samples: ($l | map(r3)), spread_pct: null,
	   kernel: $f.release, command: ($f | cmd), vm_command: $f.vm_command}
	) | flatten;

# The syncpath ratios, patched / stock instructions per operation, from
# the figures once `fsaio bench stats` reduced them; the cached 4 KiB read
# has the goal (the patch costs the synchronous path at most 0.5%).
def syncpath_ratios($f):
	($f | map(select(.id | endswith(".insn"))) | map({key: .id, value: .}) | from_entries) as $m
	| [ ("pread4k", "pread64k", "cold4k", "write4k") as $op
	  | ("patched-async0", "patched-async1") as $cfg
	  | $m["syncpath.stock.\($op).insn"] as $d | $m["syncpath.\($cfg).\($op).insn"] as $n
	  | select($d != null and $n != null)
	  | ($n.value / $d.value) as $v
	  | ({pread4k: 4096, pread64k: 65536, cold4k: 4096, write4k: 4096}[$op]) as $bytes
	  | (($n.value - $bytes) / ($d.value - $bytes)) as $nocopy
	  | {id: "syncpath.ratio.\($op).\($cfg)-vs-stock", num: $n.id, den: $d.id, value: ($v | r5)}
	    + (if $op == "pread4k" then {goal: "<= 1.005", met: ($v <= 1.005)} else {} end)
	    + {note: ("\($n.value - $d.value | . * 10 | round / 10) instructions per op (\(($v - 1) * 100 | . * 1000 | round / 1000)%); "
	             + "without the \($bytes) copy iterations (icount counts each byte of the rep movsb copy as one instruction) the ratio is \($nocopy | r5); "
	             + "run-to-run spread: stock \($d.spread_pct)%, patched \($n.spread_pct)% over \($d.samples | length)/\($n.samples | length) runs"
	             + (if $n.value == $d.value then "; identical counts: none of the patched code is on this path" else "" end))}
	  ];

# The syncpath part's method; $n = [cached 4 KiB, 64 KiB, cold] iterations.
def syncpath_extra($n; $boots; $passes):
	{method: "QEMU TCG -icount shift=0,sleep=off (1 virtual ns per instruction), 1 vCPU, ext4 on dm-delay 50 ms on a loop device over tmpfs (no I/O leaves the guest; every cold read sleeps on the device), vm.dirty_writeback_centisecs=0; ci/bench/syncpath.c pinned to CPU 0; per kernel configuration: \($boots) boot(s) x \($passes) interleaved passes",
	 iterations: {cached4k: $n[0], cached64k: $n[1], cold4k: $n[2]}, raw: "vm/syncpath.jsonl"};

# ------------------------------------------------------------ fsaio-table

# One cell of the table (input: its fio JSON) with where it ran: the
# direction fio measured, throughput, submit (slat) and completion latency.
def table_row($kind; $cname; $wname; $release; $wall_s; $file):
	.jobs[0] as $j
	| (if ($j["job options"].rw // .["global options"].rw) == "write" then "write" else "read" end) as $d
	| $j[$d] as $x
	| {kind: $kind, cname: $cname, wname: $wname, release: $release, dir: $d, wall_s: $wall_s, file: $file,
	   iops: $x.iops, mbps: ($x.bw_bytes / 1e6), ios: $x.total_ios, runtime_ms: $x.runtime,
	   slat_mean_us: ($x.slat_ns.mean / 1000),
	   slat: ($x.slat_ns.percentile // {} | to_entries | map({p: (.key | tonumber), us: (.value / 1000)})),
	   clat_p50_us: ((($x.clat_ns.percentile // {})["50.000000"] // 0) / 1000),
	   clat_p99_us: ((($x.clat_ns.percentile // {})["99.000000"] // 0) / 1000),
	   error: $j.error};

# The cross-check row: fio's slat against the io_submit time `fsaio check`
# traced in the same run ($check: its --json, $fio: fio's JSON).
def table_xcheck_row($kind; $release; $check; $fio):
	$check.engines.libaio as $e | $fio.jobs[0].read as $r
	| {xcheck: true, kind: $kind, release: $release, verdict: $check.verdict,
	   fio_ios: $r.total_ios, fio_slat_mean_us: ($r.slat_ns.mean / 1000),
	   traced_submits: $e.submit_calls, traced_submitted: $e.submitted,
	   traced_submit_us: (if $e.submit_calls > 0 then $e.submit_ns / $e.submit_calls / 1000 else null end),
	   traced_blocked_us: (if $e.submit_calls > 0 then $e.blocked_ns / $e.submit_calls / 1000 else null end),
	   lost: $check.lost_events};

# The table's figures (input: every table_row and table_xcheck_row,
# slurped): MB/s, IOPS and submit latency per kernel, configuration and
# workload.
def table_figures($slow; $rt; $size):
	def wdesc: {"randread-64k": "random read 64 KiB, iodepth 64", "randread-4k": "random read 4 KiB, iodepth 32",
	            "seqread-64k": "sequential read 64 KiB, iodepth 64", "seqread-4k": "sequential read 4 KiB, iodepth 32",
	            "osync-write-64k": "sequential O_SYNC write 64 KiB, iodepth 64 (overwrite)",
	            "osync-write-4k": "sequential O_SYNC write 4 KiB, iodepth 32 (overwrite)"}[.];
	map(select(.xcheck | not)) | map(
	  (.kind + "-" + .cname) as $s | .wname as $g
	  | {series: $s, group: $g, kernel: .release,
	     config: "\(.kind) kernel, \(.cname | vm_config_desc)\(if .kind == "patched" and .cname != "libaio-buffered-async0" then " (fs.aio-buffered-async=1)" else "" end); \(.wname | wdesc); ext4 on dm-delay \($slow) ms (loop device in guest RAM), \($size) file, runtime cap \($rt) s",
	     command: "ci/bench/bench-vm.sh --parts fsaio-table --kernels \(.kind) --delay \($slow) --runtime \($rt) --size \($size)",
	     samples_are: "one fio run (\(.ios) I/Os in \(.runtime_ms) ms)", raw: .file} as $b
	  | ($b + {id: "fsaio-table.\($s).\($g).MBps", metric: "throughput", value: (.mbps | r2), unit: "MB/s", samples: [(.mbps | r2)]}),
	    ($b + {id: "fsaio-table.\($s).\($g).iops", metric: "IOPS", value: (.iops | r2), unit: "IOPS", samples: [(.iops | r2)]}),
	    ($b + {id: "fsaio-table.\($s).\($g).slat_mean", metric: "submit latency mean (fio slat)", value: (.slat_mean_us | r2), unit: "us"}),
	    (.slat[] as $p | $b + {id: "fsaio-table.\($s).\($g).slat_p\($p.p)", metric: "submit latency p\($p.p) (fio slat)", value: ($p.us | r2), unit: "us"}),
	    ($b + {id: "fsaio-table.\($s).\($g).clat_p99", metric: "completion latency p99 (fio clat)", value: (.clat_p99_us | r2), unit: "us"})
	);

# The table's ratios, with the goals of the FSAIO table: patched libaio
# buffered at least twice stock on random reads and O_SYNC writes, within
# 10% of io_uring on reads and of O_DIRECT on O_SYNC writes, and a submit
# latency p99 ten times lower.
def table_ratios($f; $slow):
	($f | map({key: .id, value: .}) | from_entries) as $m
	| def v($s; $g; $x): $m["fsaio-table.\($s).\($g).\($x)"];
	  def ratio($id; $n; $d; $goal; $note):
	    select($n != null and $d != null and $d.value != 0)
	    | ($n.value / $d.value) as $v
	    | {id: $id, num: $n.id, den: $d.id, value: ($v | r3)}
	      + (if $goal == null then {} else {goal: $goal, met: ($goal | capture("(?<op>[<>]=) *(?<n>[0-9.]+)") | (.n | tonumber) as $t | if .op == ">=" then $v >= $t else $v <= $t end)} end)
	      + {note: $note};
	  def lat($s; $g): "slat p50/p99 \(v($s; $g; "slat_p50").value)/\(v($s; $g; "slat_p99").value) us";
	[ ("randread-64k", "randread-4k") as $g
	  | ratio("fsaio-table.ratio.\($g).iops.patched-vs-stock"; v("patched-libaio-buffered"; $g; "iops"); v("stock-libaio-buffered"; $g; "iops"); ">= 2";
	          "libaio buffered IOPS, patched (fs.aio-buffered-async=1) / stock; stock \(lat("stock-libaio-buffered"; $g)): io_submit sleeps on every miss, so the queue depth never reaches the device (dm-delay \($slow) ms); patched \(lat("patched-libaio-buffered"; $g))"),
	    ratio("fsaio-table.ratio.\($g).iops.patched-vs-io_uring"; v("patched-libaio-buffered"; $g; "iops"); v("patched-io_uring-buffered"; $g; "iops"); ">= 0.9";
	          "patched libaio buffered / io_uring buffered on the patched kernel; io_uring \(lat("patched-io_uring-buffered"; $g)), libaio \(lat("patched-libaio-buffered"; $g))"),
	    ratio("fsaio-table.ratio.\($g).iops.stock-io_uring-vs-stock"; v("stock-io_uring-buffered"; $g; "iops"); v("stock-libaio-buffered"; $g; "iops"); null;
	          "what io_uring already gives on the stock kernel")
	] + [
	  ("seqread-64k", "seqread-4k") as $g
	  | ratio("fsaio-table.ratio.\($g).MBps.patched-vs-stock"; v("patched-libaio-buffered"; $g; "MBps"); v("stock-libaio-buffered"; $g; "MBps"); null;
	          "no goal: readahead already overlaps sequential reads on stock; stock \(lat("stock-libaio-buffered"; $g)), patched \(lat("patched-libaio-buffered"; $g))")
	] + [
	  ("osync-write-64k", "osync-write-4k") as $g
	  | ratio("fsaio-table.ratio.\($g).iops.patched-vs-stock"; v("patched-libaio-buffered"; $g; "iops"); v("stock-libaio-buffered"; $g; "iops"); ">= 2";
	          "libaio buffered O_SYNC, patched / stock; stock \(lat("stock-libaio-buffered"; $g)), patched \(lat("patched-libaio-buffered"; $g)); io_uring buffered on patched: \(v("patched-io_uring-buffered"; $g; "iops").value // "?") IOPS, O_DIRECT: \(v("patched-libaio-direct"; $g; "iops").value // "?") IOPS"),
	    ratio("fsaio-table.ratio.\($g).iops.patched-vs-direct"; v("patched-libaio-buffered"; $g; "iops"); v("patched-libaio-direct"; $g; "iops"); ">= 0.9";
	          "libaio buffered O_SYNC / O_DIRECT on the patched kernel: a deep queue's sync steps must overlap as O_DIRECT writes do (how many of a context's writes are in ->fsync() at once is its bound on work items)")
	] + [
	  ("randread-64k", "randread-4k", "seqread-64k", "seqread-4k", "osync-write-64k", "osync-write-4k") as $g
	  | ratio("fsaio-table.ratio.\($g).slat_p99.stock-vs-patched"; v("stock-libaio-buffered"; $g; "slat_p99"); v("patched-libaio-buffered"; $g; "slat_p99"); ">= 10";
	          "libaio buffered submit latency p99, stock / patched: \(v("stock-libaio-buffered"; $g; "slat_p99").value) us / \(v("patched-libaio-buffered"; $g; "slat_p99").value) us; p99.9: \(v("stock-libaio-buffered"; $g; "slat_p99.9").value) / \(v("patched-libaio-buffered"; $g; "slat_p99.9").value) us"
	          + (if v("stock-libaio-buffered"; $g; "slat_p99").value < 1000 then "; on stock fewer than 1% of these submits sleep on the device (readahead stays ahead), so p99 is the CPU cost of the readahead both kernels start inline (io_uring: \(v("stock-io_uring-buffered"; $g; "slat_p99").value) us); the sleeping submits show from p99.5 on" else "" end))
	] + [
	  ("randread-64k", "randread-4k", "seqread-64k", "seqread-4k", "osync-write-64k", "osync-write-4k") as $g
	  | ratio("fsaio-table.ratio.\($g).iops.direct-patched-vs-stock"; v("patched-libaio-direct"; $g; "iops"); v("stock-libaio-direct"; $g; "iops"); null;
	          "control: O_DIRECT does not touch the patched paths, so this shows the run-to-run noise of one fio run under TCG")
	] + [
	  ratio("fsaio-table.ratio.randread-4k.iops.async0-vs-stock"; v("patched-libaio-buffered-async0"; "randread-4k"; "iops"); v("stock-libaio-buffered"; "randread-4k"; "iops"); null;
	        "control: the patched kernel with fs.aio-buffered-async=0 should behave as stock")
	];

# The submit-latency CDF of each cell, [percentile, us] points (input: the
# rows, slurped), for the plots.
def table_cdf:
	map(select(.xcheck | not)) | map({id: "fsaio-table.\(.kind)-\(.cname).\(.wname).slat", series: "\(.kind)-\(.cname)", group: .wname,
	  unit: "us", points: (.slat | map([.p, (.us * 100 | round / 100)]))});

# The cross-check rows (input: the rows, slurped) with whether fio and the
# trace agree, by the rule fsaio check applies to its own workloads.
def table_xcheck:
	map(select(.xcheck)) | map(del(.xcheck)
	  | . + {agree: (if .traced_submit_us == null then null else ((.fio_slat_mean_us - .traced_submit_us) | fabs) <= (0.5 * ([.fio_slat_mean_us, .traced_submit_us] | max) + 50) end),
	         rule: "fsaio check workload_agreement rule: |fio slat mean - traced io_submit time per call| <= 50% of the larger + 50 us"});

# The table's figures with the cross-check as figures too, so that it
# shows in the table ($f: table_figures, $x: table_xcheck).
def table_xcheck_figures($f; $x; $slow):
	$f + [ $x[] as $c
	| ({id: "fsaio-table.xcheck.\($c.kind).fio_slat_mean", series: "xcheck-\($c.kind)", group: "randread-4k",
	    metric: "fio slat mean, 4 KiB libaio buffered random read under fsaio check", value: ($c.fio_slat_mean_us | r2_or_null), unit: "us",
	    kernel: $c.release, config: "\($c.kind) kernel; traced by ./fsaio check (verdict \($c.verdict), lost \($c.lost))",
	    command: "ci/bench/bench-vm.sh --parts fsaio-table --kernels \($c.kind) --delay \($slow)"},
	   {id: "fsaio-table.xcheck.\($c.kind).traced_submit", series: "xcheck-\($c.kind)", group: "randread-4k",
	    metric: (if $c.traced_submit_us == null then "traced io_submit time per call: no io_submit traced (\($c.traced_submitted) requests seen; no syscall tracepoints in this kernel?)"
	             else "traced io_submit time per call (\($c.traced_submits) calls, blocked \($c.traced_blocked_us | r2_or_null) us/call in page waits); agrees with fio slat: \($c.agree)" end),
	    value: ($c.traced_submit_us | r2_or_null), unit: "us", kernel: $c.release,
	    config: "\($c.kind) kernel; traced by ./fsaio check",
	    command: "ci/bench/bench-vm.sh --parts fsaio-table --kernels \($c.kind) --delay \($slow)"}) ];

# The table part's method, CDFs and cross-check.
def table_extra($cdf; $x; $slow; $rt; $size):
	{method: "QEMU TCG -icount shift=0,sleep=off (virtual time: 1 ns per instruction, idle time skipped to the next timer, so the figures do not depend on the host load), 2 vCPUs, 3 GiB; ext4 on dm-delay \($slow) ms per read, write and flush on a loop device over a tmpfs file (no I/O leaves the guest); one \($size) file laid out and fsynced once, caches dropped before every cell (and fio invalidate=1); fio iodepth_batch_submit=1, runtime cap \($rt) s of virtual time or one pass over the file; one boot per kernel; job file ci/bench/table.fio, driver ci/bench/table-guest.sh",
	 cdf: $cdf, xcheck: $x, raw: "vm/table.jsonl"};

# ------------------------------------------------------------ device-classes

# One cell (input: its fio JSON) with where it ran: device latency $us,
# configuration, workload and iodepth.
def classes_row($kind; $cname; $wname; $us; $qd; $release; $wall_s; $file):
	.jobs[0] as $j
	| (if ($j["job options"].rw // .["global options"].rw) == "write" then "write" else "read" end) as $d
	| $j[$d] as $x
	| {kind: $kind, cname: $cname, wname: $wname, us: $us, qd: $qd, release: $release, wall_s: $wall_s, file: $file,
	   iops: $x.iops, mbps: ($x.bw_bytes / 1e6), ios: $x.total_ios, runtime_ms: $x.runtime,
	   slat_mean_us: ($x.slat_ns.mean / 1000),
	   clat_p50_us: ((($x.clat_ns.percentile // {})["50.000000"] // 0) / 1000)};

# The device-classes figures (input: every classes_row, slurped): IOPS,
# MB/s, submit and completion latency per kernel, configuration, device
# latency, workload and iodepth (group "USus.WORKLOAD-qdN").
def classes_figures($rt; $size):
	def wdesc: {"randread-4k": "random read 4 KiB", "randread-64k": "random read 64 KiB",
	            "osync-write-4k": "sequential O_SYNC overwrite 4 KiB",
	            "osync-write-64k": "sequential O_SYNC overwrite 64 KiB"}[.];
	map(
	  (.kind + "-" + .cname) as $s | "\(.us)us.\(.wname)-qd\(.qd)" as $g
	  | {series: $s, group: $g, kernel: .release,
	     config: "\(.kind) kernel, \(.cname | vm_config_desc)\(if .kind == "patched" then " (fs.aio-buffered-async=1)" else "" end); \(.wname | wdesc), iodepth \(.qd); ext4 on null_blk completing every request \(.us) us after submission (memory-backed, irqmode=2), \($size) file, runtime cap max(\($rt) s, 100 device latencies)",
	     command: "ci/bench/bench-vm.sh --parts device-classes --kernels \(.kind)",
	     samples_are: "one fio run (\(.ios) I/Os in \(.runtime_ms) ms of virtual time)", raw: .file,
	     device_us: .us, qd: .qd, workload: .wname} as $b
	  | ($b + {id: "device-classes.\($s).\($g).iops", metric: "IOPS", value: (.iops | r2), unit: "IOPS", samples: [(.iops | r2)]}),
	    ($b + {id: "device-classes.\($s).\($g).MBps", metric: "throughput", value: (.mbps | r2), unit: "MB/s", samples: [(.mbps | r2)]}),
	    ($b + {id: "device-classes.\($s).\($g).slat_mean", metric: "submit latency mean (fio slat)", value: (.slat_mean_us | r2), unit: "us"}),
	    ($b + {id: "device-classes.\($s).\($g).clat_p50", metric: "completion latency p50 (fio clat)", value: (.clat_p50_us | r2), unit: "us"})
	) | flatten;

# The patched / stock, io_uring and O_DIRECT IOPS ratios per device class,
# workload and iodepth.  The 2007 FSAIO table, measured on a disk of its
# day (random read 2.37x, O_SYNC write 3.76x, patched / stock libaio),
# stands beside the disk class (8 ms).
def classes_ratios($f):
	($f | map(select(.id | endswith(".iops"))) | map({key: .id, value: .}) | from_entries) as $m
	| def v($s; $g): $m["device-classes.\($s).\($g).iops"];
	  def ratio($id; $n; $d; $note):
	    select($n != null and $d != null and $d.value != 0)
	    | {id: $id, num: $n.id, den: $d.id, value: ($n.value / $d.value | r3), note: $note};
	  def y2007($w): if ($w | startswith("randread")) then 2.37 else 3.76 end;
	[ $f[] | select(.id | endswith(".iops")) | .group ] | unique | map(
	  . as $g | ($g | capture("^(?<us>[0-9]+)us\\.(?<w>.*)-qd(?<qd>[0-9]+)$")) as $c
	  | ratio("device-classes.ratio.\($g).patched-vs-stock"; v("patched-libaio-buffered"; $g); v("stock-libaio-buffered"; $g);
	          "libaio buffered IOPS, patched / stock, device \($c.us) us, iodepth \($c.qd)"
	          + (if $c.us == "8000" then "; the 2007 FSAIO table (a disk of its day) gave \(y2007($c.w))x for \(if ($c.w | startswith("randread")) then "random reads" else "O_SYNC writes" end)" else "" end)),
	    ratio("device-classes.ratio.\($g).patched-vs-io_uring"; v("patched-libaio-buffered"; $g); v("stock-io_uring-buffered"; $g);
	          "patched libaio buffered / io_uring buffered (stock kernel: io_uring does not enter the patched code)"),
	    ratio("device-classes.ratio.\($g).patched-vs-direct"; v("patched-libaio-buffered"; $g); v("stock-libaio-direct"; $g);
	          "patched libaio buffered / libaio O_DIRECT")
	) | flatten;

# The device-classes part's method; $classes: the latencies, "US,US,...".
def classes_extra($rt; $size; $classes):
	{method: "QEMU TCG -icount shift=0,sleep=off (virtual time), 2 vCPUs, 3 GiB; per device class a memory-backed null_blk (configfs; irqmode=2: every request completes from an hrtimer the class latency after submission, no vCPU polls; no volatile cache, so flushes are free) with ext4 on it and one \($size) file laid out and fsynced; caches dropped before every cell; fio iodepth_batch_submit=1, runtime cap max(\($rt) s, 100 x latency) of virtual time or one pass over the file; one boot per kernel; job file ci/bench/table.fio, driver ci/bench/classes-guest.sh. Classes (us): \($classes)",
	 classes_us: ($classes | split(",") | map(tonumber)),
	 fsaio_2007: {randread: 2.37, osync_write: 3.76, note: "patched / stock libaio, the 2007 FSAIO patch set on a disk of its day, as published with it"},
	 raw: "vm/classes.jsonl"};

# The device-classes IOPS table in markdown, one row per device latency,
# workload and iodepth (input: a device-classes part file or bench.json;
# docs/benchmarks.md prints it with ci/bench/classes-table.jq).
def classes_table:
	def v($s; $g): (.figures | map(select(.id == "device-classes.\($s).\($g).iops")) | .[0].value) // null;
	def f: if . == null then "?" elif . >= 100 then (. | round | tostring) else (. * 10 | round / 10 | tostring) end;
	. as $p
	| ($p.figures | map(select((.id | startswith("device-classes.")) and (.id | endswith(".iops")))) | map(.group) | unique
	   | sort_by(capture("^(?<us>[0-9]+)us\\.(?<w>.*)-qd(?<qd>[0-9]+)$") | [(.us | tonumber), .w, (.qd | tonumber)])) as $G
	| "| device | workload | iodepth | stock libaio | patched libaio | io_uring | O_DIRECT | patched / stock |",
	  "|---|---|---|---|---|---|---|---|",
	  ($G[] as $g | ($g | capture("^(?<us>[0-9]+)us\\.(?<w>.*)-qd(?<qd>[0-9]+)$")) as $c
	   | ($p | v("stock-libaio-buffered"; $g)) as $s | ($p | v("patched-libaio-buffered"; $g)) as $pa
	   | "| \(($c.us | tonumber) / 1000) ms | \($c.w) | \($c.qd) | \($s | f) | \($pa | f) | \($p | v("stock-io_uring-buffered"; $g) | f) | \($p | v("stock-libaio-direct"; $g) | f) | \(if $s and $pa then ($pa / $s * 100 | round / 100 | tostring) + "x" else "?" end) |");

# ------------------------------------------------------------ stap-cost

# One fio run of the stap-cost rounds (input: its fio JSON), with the
# event source and what the tracer recorded and lost.
def stapcost_row($engine; $source; $round; $records; $lost; $file):
	{engine: $engine, source: $source, round: $round, records: $records, lost: $lost, file: $file,
	 iops: .jobs[0].read.iops, ios: .jobs[0].read.total_ios};

# The stap-cost figures (input: every stapcost_row, slurped): IOPS per
# engine and event source, one sample per round.
def stapcost_figures($rel; $rt):
	def desc: {none: "untraced", bpf: "BPF tracer recording every event (fsaio check --no-fentry --record)",
	           stap: "SystemTap recording every event (stap/fsaio-stap.sh run)"}[.];
	group_by(.engine + .source) | map(
	  .[0] as $a | {id: "stap-cost.\($a.engine).\($a.source).iops", metric: "IOPS", unit: "IOPS",
	    series: $a.source, group: $a.engine, kernel: $rel, stat: "median", digits: 1,
	    samples: map(.iops), records: map(.records), lost: map(.lost),
	    config: "fio 4 KiB random reads of a cached 64 MiB file, \($a.engine)\(if $a.engine == "io_uring" then " iodepth 8" else "" end), \($rt) s virtual time; \($a.source | desc)",
	    command: "ci/bench/bench-vm.sh --parts stap-cost",
	    samples_are: "one fio run per round, rounds interleaved (none, bpf, stap)"});

# Traced / untraced IOPS per source, and SystemTap against BPF.
def stapcost_ratios($f):
	($f | map({key: .id, value: .}) | from_entries) as $m
	| [ ("psync", "io_uring") as $e
	    | ( {id: "stap-cost.ratio.\($e).bpf-vs-none", num: "stap-cost.\($e).bpf.iops", den: "stap-cost.\($e).none.iops",
	         note: "traced / untraced IOPS, BPF recording every event"},
	        {id: "stap-cost.ratio.\($e).stap-vs-none", num: "stap-cost.\($e).stap.iops", den: "stap-cost.\($e).none.iops",
	         note: "traced / untraced IOPS, SystemTap recording every event"},
	        {id: "stap-cost.ratio.\($e).stap-vs-bpf", num: "stap-cost.\($e).stap.iops", den: "stap-cost.\($e).bpf.iops",
	         note: "SystemTap / BPF traced IOPS (above 1: SystemTap costs less)"} )
	    | select($m[.num] != null and $m[.den] != null and $m[.den].value != 0)
	    | . + {value: ($m[.num].value / $m[.den].value | r3)} ];

# The stap-cost part's method; $env: the guest's env file.
def stapcost_extra($env):
	{method: "QEMU TCG -icount shift=0,sleep=off (virtual time: instructions), 2 vCPUs; the patched 6.12 kernel of FLAVOR=stap (modules, kprobes, DWARF); both sources record every event of the traced fio and its threads; records and lost per run in each figure; driver ci/bench/stapcost-guest.sh",
	 guest: ($env | split("\n"))};

# ------------------------------------------------------------ database

# One sysbench run of the database part (a line of the guest's cells.tsv,
# split on tabs) with the kernel it ran on.
def database_row($kind; $release; $dir):
	{kind: $kind, release: $release, class: .[0], flush: .[1], round: (.[2] | tonumber),
	 txns: (.[3] | tonumber), tps: (.[4] | tonumber), p95_ms: (.[5] | tonumber),
	 p99_ms: (.[6] | tonumber), cpu_ms_per_txn: (.[7] | tonumber),
	 file: "\($dir)/\(.[0])-\(.[1])-r\(.[2]).txt"};

# The database figures (input: every database_row, slurped): transactions
# per second, p95 and p99 latency and CPU per transaction, per kernel,
# flush method and device class, one sample per round (median).
def database_figures($secs):
	def cdesc: if . == "virtio" then "ext4 on the virtio scratch disk (a host file)"
		   else "ext4 on dm-delay \(ltrimstr("delay")) ms per read and write over the virtio disk" end;
	def fdesc: if . == "fsync" then "innodb_flush_method=fsync (buffered data files: the series' paths)"
		   else "innodb_flush_method=O_DSYNC (MariaDB 10.11 opens the data files O_DIRECT: the comparison)" end;
	group_by([.kind, .flush, .class]) | map(sort_by(.round)) | map(
	  .[0] as $a | "\($a.kind)-\($a.flush)" as $s
	  | {series: $s, group: $a.class, kernel: $a.release, stat: "median",
	     config: "\($a.kind) kernel; MariaDB InnoDB over libaio (kernel.io_uring_disabled=2), 8 MiB buffer pool, one 30 MiB sysbench table; \($a.flush | fdesc); \($a.class | cdesc); sysbench oltp_read_write, 4 threads, \($secs) s, page cache dropped before each run",
	     command: "ci/bench/bench-vm.sh --parts database --kernels \($a.kind)",
	     samples_are: "one sysbench run per round: a boot per kernel and round, the kernels alternating, the flush methods interleaved in a boot", raw: map(.file)} as $b
	  | ($b + {id: "database.\($s).\($a.class).tps", metric: "transactions per second", unit: "tps", digits: 1, samples: map(.tps)}),
	    ($b + {id: "database.\($s).\($a.class).p95", metric: "latency p95 (sysbench)", unit: "ms", digits: 2, samples: map(.p95_ms)}),
	    ($b + {id: "database.\($s).\($a.class).p99", metric: "latency p99 (sysbench histogram)", unit: "ms", digits: 2, samples: map(.p99_ms)}),
	    ($b + {id: "database.\($s).\($a.class).cpu", metric: "guest CPU per transaction", unit: "ms", digits: 3, samples: map(.cpu_ms_per_txn)})
	) | flatten;

# Patched / stock per flush method, device class and figure (above 1 is
# better for tps, below 1 for latency and CPU).
def database_ratios($f):
	($f | map({key: .id, value: .}) | from_entries) as $m
	| [ $f[] | select(.id | startswith("database.stock-")) | .id
	    | capture("^database\\.stock-(?<fl>[^.]+)\\.(?<c>[^.]+)\\.(?<m>[^.]+)$") as $x
	    | {id: "database.ratio.\($x.fl).\($x.c).\($x.m).patched-vs-stock",
	       num: "database.patched-\($x.fl).\($x.c).\($x.m)", den: .,
	       note: "\({tps: "transactions per second", p95: "p95 latency", p99: "p99 latency", cpu: "CPU per transaction"}[$x.m]), patched / stock, innodb_flush_method=\($x.fl), \($x.c)"}
	    | select($m[.num] != null and $m[.den].value != 0)
	    | . + {value: ($m[.num].value / $m[.den].value | r3)} ];

# The database table in markdown, one row per device class and flush
# method (input: a database part file or bench.json; docs/benchmarks.md
# and the README print it with ci/bench/database-table.jq).
def database_table:
	def v($id): (.figures | map(select(.id == $id)) | .[0].value) // null;
	def f($d): if . == null then "?" else (. * pow(10; $d) | round / pow(10; $d) | tostring) end;
	def x($n; $s): if $n != null and $s != null and $s != 0 then ($n / $s * 100 | round / 100 | tostring) + "x" else "?" end;
	. as $p
	| ($p.figures | map(select(.id | test("^database\\.stock-[^.]+\\.[^.]+\\.tps$"))) | map(.id | capture("^database\\.stock-(?<fl>[^.]+)\\.(?<c>[^.]+)\\.")) | unique | sort_by([.c, .fl])) as $R
	| "| device | flush method | tps stock | tps patched | patched / stock | p95 ms stock / patched | p99 ms stock / patched | CPU per txn patched / stock |",
	  "|---|---|---|---|---|---|---|---|",
	  ($R[] as $r | "database.stock-\($r.fl).\($r.c)" as $s | "database.patched-\($r.fl).\($r.c)" as $q
	   | "| \($r.c) | \($r.fl) | \($p | v("\($s).tps") | f(1)) | \($p | v("\($q).tps") | f(1)) | \(x($p | v("\($q).tps"); $p | v("\($s).tps"))) | \($p | v("\($s).p95") | f(1)) / \($p | v("\($q).p95") | f(1)) | \($p | v("\($s).p99") | f(1)) / \($p | v("\($q).p99") | f(1)) | \(x($p | v("\($q).cpu"); $p | v("\($s).cpu"))) |");

# The database part's method; $env: the guest's env file of each kernel.
def database_extra($rounds; $secs; $classes; $env):
	{method: "QEMU TCG (wall-clock time: the host's load enters, hence rounds and medians), 2 vCPUs, 2 GiB, one boot per kernel; per device class ext4 made on the scratch disk, a datadir filled once (sysbench prepare, 100000 rows), then \($rounds) rounds of sysbench oltp_read_write (4 threads, \($secs) s) per innodb_flush_method, the page cache dropped and mariadbd restarted before each run; CPU per transaction = busy guest CPU time during the run / transactions; driver ci/db/db-bench-guest.sh. InnoDB's foreground page reads are synchronous preads: the series reaches only its read-ahead and page writes (fsync), and none of its O_DSYNC runs (O_DIRECT data files)",
	 classes: ($classes | split(",")), guest: $env};

# ------------------------------------------------------------ plots

# The distinct elements of an array, in the order they first appear.
def firsts: reduce .[] as $x ([]; if index([$x]) then . else . + [$x] end);

# A figure's series, group and metric: its "series" and "group" fields if
# present, else from its id, <part>.<series>.<group...>.<metric>.
def plot_sgm:
	(.id | split(".")) as $f
	| {series: (.series // $f[1] // "?"), group: (.group // ($f[2:-1] | join(".")) | if . == "" then "-" else . end),
	   metric: ($f[-1])};

# Why a plot of part $p has no figures (input: bench.json).
def plot_part_reason($p):
	(.parts // [] | map(select(.name == $p)) | .[0]) as $s
	| if $s == null then "part \($p) not in bench.json"
	  elif $s.status != "ok" then "part \($p) \($s.status): \($s.reason // "no reason given")"
	  else "part \($p) has no such figures" end;

# The figures that sel selects as a table (jq -r: tab-separated lines): a
# header "group<TAB>s1<TAB>s1 sd...", then one row per group, value and
# stddev per series; a missing cell is "?".  Nothing without figures.
def plot_pivot(sel):
	[.figures[] | select(sel) | select(.value != null) | . + plot_sgm] as $f
	| ($f | map(.series) | firsts) as $S
	| ($f | map(.group) | firsts) as $G
	| if ($f | length) == 0 then empty else
	  (["group"] + ($S | map(., . + " sd")) | @tsv),
	  ($G[] as $g | [$g] + ($S | map(. as $s | ($f | map(select(.group == $g and .series == $s)) | .[0]) as $x
	      | if $x == null then "?", "?" else $x.value, ($x.stddev // 0) end)) | @tsv)
	  end;

# The unit of the first figure that sel selects.
def plot_first_unit(sel): [.figures[] | select(sel)][0].unit;

# The tracer ratios for a plot title: "ENGINE_GROUP VALUE, ...".
def plot_tracer_title: [.ratios[] | select(.part == "tracer") | "\(.id | split(".")[1]) \(.value)"] | join(", ");

# The fsaio-table submit-latency CDFs from the slat_pNN figures, one line
# per workload: "GROUP<TAB>UNIT<TAB>SERIES=US:PCT,...;SERIES=...".
def plot_slat_cdfs:
	[.figures[] | select(.part == "fsaio-table" and (.id | test("\\.slat_p[0-9.]+$")) and .value != null)
	 | .pct = (.id | capture("slat_p(?<p>[0-9.]+)$").p | tonumber)
	 | . + (.id |= sub("\\.slat_p[0-9.]+$"; ".slat") | plot_sgm)]
	| group_by(.group)[] | .[0].group as $g
	| "\($g)\t\(.[0].unit)\t" + ([group_by(.series)[] | .[0].series + "=" + (sort_by(.pct) | map("\(.value):\(.pct)") | join(","))] | join(";"));

# The device-classes IOPS against device latency, one line per workload,
# configuration and iodepth: "WORKLOAD<TAB>SERIES qdN<TAB>MS:IOPS,...".
def plot_classes:
	[.figures[] | select(.part == "device-classes" and (.id | endswith(".iops")) and .value != null)]
	| group_by(.workload)[] | .[0].workload as $w
	| group_by(.series + " qd" + (.qd | tostring))[] | sort_by(.device_us)
	| "\($w)\t\(.[0].series) qd\(.[0].qd)\t" + (map("\(.device_us / 1000):\(.value)") | join(","));

# The syncpath instructions as % over the "stock" series of the same
# operation, as plot_pivot tables them; nothing without stock and patched
# figures of the same operation.
def plot_syncpath_vs_stock:
	[.figures[] | select(.part == "syncpath" and (.unit | ascii_downcase | test("instruction|insn")) and .value != null) | . + plot_sgm] as $f
	| ($f | map(select(.series == "stock")) | map({key: .group, value: .value}) | from_entries) as $stock
	| [$f[] | select(.series != "stock" and $stock[.group] != null)] as $o
	| ($o | map(.series) | firsts) as $S | ($o | map(.group) | firsts) as $G
	| if ($o | length) == 0 then empty else
	  (["group"] + ($S | map(., . + " sd")) | @tsv),
	  ($G[] as $g | [$g] + ($S | map(. as $s | ($o | map(select(.group == $g and .series == $s)) | .[0]) as $x
	      | if $x == null then "?", "?" else ($x.value / $stock[$g] - 1) * 100, (($x.stddev // 0) / $stock[$g] * 100) end)) | @tsv)
	  end;

# plots.json (input: plots.tsv lines, jq -R): what was drawn, from which
# files, or why not.
def plot_list:
	[inputs | split("\t") | {name: .[0], status: .[1]} +
	 (if .[1] == "drawn" then {files: (.[2] | split(" "))} else {reason: .[2]} end)];
