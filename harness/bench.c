// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio bench: helpers for `make bench` (ci/bench/bench.sh).
 *
 *   fsaio bench show [--all] FILE   print a bench.json (fsaio-bench/1) as a table
 *   fsaio bench pin FILE    keep FILE's pages in the page cache until SIGINT/SIGTERM
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
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "commands.h"
#include "common.h"

static int bench_pin(const char *path)
{
	volatile unsigned char sink = 0;
	long page = sysconf(_SC_PAGESIZE);
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
		return EXIT_FAIL;
	}
	for (off = 0; off < st.st_size; off += page)
		sink += p[off];
	locked = !mlock(p, st.st_size);
	fsaio_install_signals();
	printf("fsaio: pinned %s: %lld bytes %s\n", path, (long long)st.st_size,
	       locked ? "mapped and mlocked" : "mapped (mlock failed; drop_caches still skips mapped pages)");
	fflush(stdout);
	while (!fsaio_interrupted)
		pause();
	munmap(p, st.st_size);
	close(fd);
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
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: fsaio bench show [--all] FILE\n"
		       "       fsaio bench pin FILE\n\n"
		       "show: print a benchmark result (bench.json, schema fsaio-bench/1, written\n"
		       "by `make bench`, see ci/README.md) as a table: the parts that ran or were\n"
		       "skipped and why, every figure with its spread, every ratio with its goal;\n"
		       "percentiles other than p50 and p99 only with --all.\n"
		       "pin: keep FILE in the page cache (mapped and mlocked) until SIGINT or\n"
		       "SIGTERM, so other jobs' drop_caches cannot turn cached reads into disk\n"
		       "reads during a benchmark; prints one line once the pages are held.\n\n"
		       "To run the benchmark: make bench.  To compare two results: fsaio compare.\n"
		       "Exit status: 0 ok, 1 error, 2 usage or a bad file.\n");
		return EXIT_PASS;
	}
	fsaio_err("usage: fsaio bench show [--all] FILE | fsaio bench pin FILE (see 'fsaio bench --help')");
	return EXIT_USAGE;
}
