// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio bench: helpers for `make bench` (ci/bench/bench.sh).
 *
 *   fsaio bench show [--all] FILE   print a bench.json (fsaio-bench/1) as a table
 *                           (results/bench_show.c)
 *   fsaio bench pin FILE    keep FILE's pages in the page cache until SIGINT/SIGTERM
 *   fsaio bench stats FILE...  fill in value/stddev of figures from their samples
 *                           (results/stats.h: the one implementation)
 *
 * pin exists because the tracer benchmark measures *cached* reads on a
 * machine where other jobs run `echo 3 > /proc/sys/vm/drop_caches` (fsaio
 * check does, before each workload): a dropped page turns a 1 us cached
 * read into a disk read and the run into noise.  drop_caches and reclaim
 * leave mapped, mlocked pages alone, so the file is mapped, every page
 * touched, and mlocked (with CAP_IPC_LOCK or a large enough
 * RLIMIT_MEMLOCK; otherwise it stays mapped, which drop_caches skips).
 * The read path fio measures is the same filemap_read() either way.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "cmd/commands.h"
#include "common.h"
#include "results/resultset.h"
#include "results/stats.h"

static int bench_pin(const char *path)
{
	volatile unsigned char sink = 0;
	long page = sysconf(_SC_PAGESIZE);
	sigset_t block, old;
	struct stat st;
	unsigned char *p;
	bool locked;
	off_t off;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fsaio_err("cannot open %s: %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) {
		fsaio_err("%s: not a non-empty regular file", path);
		close(fd);
		return EXIT_USAGE;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED) {
		fsaio_err("cannot map %s: %s", path, strerror(errno));
		close(fd);
		return EXIT_ERROR;
	}
	for (off = 0; off < st.st_size; off += page)
		sink += p[off];
	locked = !mlock(p, st.st_size);
	/* Block the signals before the check so one arriving between the
	 * check and the wait is not lost (pause() would sleep through it). */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	fsaio_install_signals();
	printf("fsaio: pinned %s: %lld bytes %s\n", path, (long long)st.st_size,
	       locked ? "mapped and mlocked" : "mapped (mlock failed; drop_caches still skips mapped pages)");
	fflush(stdout);
	while (!fsaio_interrupted)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	munmap(p, st.st_size);
	close(fd);
	return EXIT_PASS;
}

/* Fill every object with a "stat" key, at any depth. */
static int fill_all(json_object *o, int *filled, char *err, size_t errlen)
{
	size_t i;
	int ret;

	if (json_object_is_type(o, json_type_array)) {
		for (i = 0; i < json_object_array_length(o); i++)
			if (fill_all(json_object_array_get_idx(o, i), filled, err, errlen))
				return -EINVAL;
		return 0;
	}
	if (!json_object_is_type(o, json_type_object))
		return 0;
	ret = bench_figure_fill(o, err, errlen);
	if (ret < 0)
		return ret;
	*filled += ret;
	json_object_object_foreach(o, key, val) {
		(void)key;
		if (fill_all(val, filled, err, errlen))
			return -EINVAL;
	}
	return 0;
}

static int bench_stats(int nfiles, char **files)
{
	char err[256] = "", tmp[4096];
	int i, filled;

	/* shortest exact-enough form, not %.17g's 66.666700000000006 */
	json_c_set_serialization_double_format("%.10g", JSON_C_OPTION_GLOBAL);
	for (i = 0; i < nfiles; i++) {
		json_object *root;

		if (rs_check_input(files[i], err, sizeof(err))) {
			fsaio_err("%s", err);
			return EXIT_USAGE;
		}
		root = json_object_from_file(files[i]);
		if (!root) {
			fsaio_err("%s: not valid JSON (or unreadable): %s", files[i],
				  json_util_get_last_err());
			return EXIT_USAGE;
		}
		filled = 0;
		if (fill_all(root, &filled, err, sizeof(err))) {
			fsaio_err("%s: %s", files[i], err);
			json_object_put(root);
			return EXIT_USAGE;
		}
		snprintf(tmp, sizeof(tmp), "%s.stats-tmp", files[i]);
		if (json_object_to_file_ext(tmp, root, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_NOSLASHESCAPE) < 0 ||
		    rename(tmp, files[i])) {
			fsaio_err("cannot write %s: %s", files[i], strerror(errno));
			unlink(tmp);
			json_object_put(root);
			return EXIT_ERROR;
		}
		json_object_put(root);
		fsaio_info("%s: %d figure(s) filled", files[i], filled);
	}
	return EXIT_PASS;
}

int cmd_bench(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "show"))
		return bench_show(argv[2], false);
	if (argc == 4 && !strcmp(argv[1], "show") &&
	    (!strcmp(argv[2], "--all") || !strcmp(argv[2], "-a")))
		return bench_show(argv[3], true);
	if (argc == 3 && !strcmp(argv[1], "pin"))
		return bench_pin(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "stats"))
		return bench_stats(argc - 2, argv + 2);
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: fsaio bench show [--all] FILE\n"
		       "       fsaio bench pin FILE\n"
		       "       fsaio bench stats FILE...\n\n"
		       "show: print a benchmark result (bench.json, schema fsaio-bench/1, written\n"
		       "by `make bench`, see ci/README.md) as a table: the parts that ran or were\n"
		       "skipped and why, every figure with its spread, every ratio with its goal;\n"
		       "percentiles other than p50 and p99 only with --all.\n"
		       "pin: keep FILE in the page cache (mapped and mlocked) until SIGINT or\n"
		       "SIGTERM, so other jobs' drop_caches cannot turn cached reads into disk\n"
		       "reads during a benchmark; prints one line once the pages are held.\n"
		       "stats: in each JSON FILE, every object with \"stat\": \"median\"|\"mean\"\n"
		       "and \"samples\" gets \"value\" (that statistic) and \"stddev\" (sample\n"
		       "standard deviation), rounded to \"digits\" decimals if given, and\n"
		       "\"spread_pct\" ((max - min) / mean) if that key is present.  make bench\n"
		       "uses it so that every figure is reduced by the same code as compare's.\n\n"
		       "To run the benchmark: make bench.  To compare two results: fsaio compare.\n"
		       "Exit status: 0 ok, 5 error, 64 usage or a bad file.\n");
		return EXIT_PASS;
	}
	fsaio_err("usage: fsaio bench show [--all] FILE | pin FILE | stats FILE... (see 'fsaio bench --help')");
	return EXIT_USAGE;
}
