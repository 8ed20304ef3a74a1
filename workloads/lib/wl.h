/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwl: what the custom workloads (one program per case, workloads/NAME.c)
 * share.  Built once into .output/lib/libwl.a and linked into each of them,
 * like liburing's test/helpers.c:
 *   opts.c    options, the final line, exit (wl_getopt, wl_finish, wl_skip,
 *             wl_die)
 *   verify.c  deterministic content and its checks (pattern_byte,
 *             wl_verify...), exactly-once accounting (wl_account)
 *   files.c   test files: create cold, track, remove at exit; buffers
 *   aio.c     libaio: setup with skip, submit, reap, the libaio side of a
 *             read case
 *   uring.c   io_uring: the same
 *   uffd.c    buffers that stall (userfaultfd) and passing a descriptor to
 *             another process
 *   stall.c   one process's stalled reads beside another's (wl_stall_main)
 *   reads.c   the read cases the libaio/io_uring twins share (wl_reads_*,
 *             wl_batch_case...) and wl_reads_main, a twin's whole main
 *
 * Conventions every workload follows:
 *  - CLI: <prog> [-d DIR] [-n COUNT] [-s FILESIZE] [-h], plus case flags;
 *    files are created in DIR and removed at the end.
 *  - File content is pattern_byte(seed, offset) in data regions and zero in
 *    holes, so any byte read back can be checked without keeping a copy.
 *  - Test files are fsync'ed and dropped from the page cache before use, so
 *    buffered reads are cold and really wait on the device.
 *  - Last line on stdout, parsed by the harness (counts must be exact):
 *      fsaio-workload: name=N engine=E submitted=N completed=N errors=N
 *                      bytes=N verified=N [abandoned=N]
 *    submitted/completed: async requests accepted by io_submit/io_uring and
 *    reaped as io_event/CQE; errors: requests with a wrong result or wrong
 *    data; bytes: sum of positive results; verified: requests (async and,
 *    in mixed cases, sync) whose every byte matched; abandoned (only when
 *    not 0): requests left unreaped on purpose to io_destroy or to the exit
 *    of the process that submitted them.
 *  - Exit status (harness/exit_status.h, one table for all of fsaio):
 *    EXIT_PASS 0, EXIT_FAIL 1 (mismatch, unexpected result, or an error
 *    that stopped the case: wl_die), EXIT_SKIP 4 (wl_skip), EXIT_USAGE 64
 *    (bad flag or value, -d not a directory).
 */
#ifndef FSAIO_WORKLOADS_WL_H
#define FSAIO_WORKLOADS_WL_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libaio.h>
#include <liburing.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "exit_status.h"	/* harness/: EXIT_PASS, EXIT_FAIL, EXIT_SKIP, EXIT_USAGE */

#define WL_PAGE		4096u
#define WL_MAX_COUNT	4096u	/* one io_setup / one ring holds them all */
#define WL_TIMEOUT_S	60	/* a lost completion fails instead of hanging */

/* ---- options, the final line, exit (opts.c) ---------------------------- */

struct wl_opts {
	const char *name;	/* workload name, for the final line */
	const char *dir;
	unsigned count;
	uint64_t size;
	bool size_set;		/* -s given: cases derive defaults otherwise */
};

/*
 * Parse the common flags.  extra_opts/extra let a case add its own
 * single-letter flags (extra returns 0, or -1 for a usage error).
 * Exits with EXIT_USAGE (or EXIT_PASS for -h) itself.
 */
void wl_getopt(int argc, char **argv, struct wl_opts *o, const char *help,
	       const char *extra_opts, int (*extra)(int c, const char *arg));

struct wl_stats {
	uint64_t submitted, completed, errors, bytes, verified, abandoned;
};

/* Print the fsaio-workload: line; EXIT_PASS if every request checked out. */
int wl_finish(const struct wl_opts *o, const char *engine,
	      const struct wl_stats *st);

/* CLOCK_MONOTONIC in seconds. */
double wl_now(void);

/* Print "# SKIP ..." and exit EXIT_SKIP (4), kselftest style. */
void __attribute__((noreturn)) wl_skip(const char *what, int err);
/* Print "error: what: strerror(err)" and exit EXIT_FAIL. */
void __attribute__((noreturn)) wl_die(const char *what, int err);

/* ---- deterministic content and its checks (verify.c) ------------------- */

/* The byte at offset of a file written with seed (8 bytes per hash). */
uint8_t pattern_byte(uint64_t seed, uint64_t off);
void pattern_fill(uint64_t seed, uint64_t off, void *buf, size_t len);

/* A byte range [off, off+len) holding pattern data; the rest is a hole. */
struct wl_extent {
	uint64_t off, len;
};

struct wl_file {
	char path[PATH_MAX];
	uint64_t size;
	uint64_t seed;
	const struct wl_extent *data;	/* NULL: the whole file is data */
	unsigned ndata;
};

/* What f holds at off: pattern in data, 0 in holes and past EOF. */
uint8_t wl_expected(const struct wl_file *f, uint64_t off);

/*
 * Check buf against what the file holds at [off, off+len).  Prints the
 * first mismatch and returns -1; 0 if every byte matches.
 */
int wl_verify(const struct wl_file *f, const void *buf, uint64_t off,
	      size_t len);

/* Expected result of a read of len at off: stops at EOF. */
size_t wl_expected_res(const struct wl_file *f, uint64_t off, size_t len);

/* Bytes past the result must be untouched (buffers start as 0xa5). */
int wl_check_tail(const void *buf, size_t res, size_t len);

/* Verify a vectored read that returned res bytes at off. */
int wl_verify_iov(const struct wl_file *f, const struct iovec *iov,
		  unsigned niov, uint64_t off, size_t res);

/* Deterministic offsets/lengths without rand(): a hash of a counter. */
uint64_t wl_rand(uint64_t seed, uint64_t i, uint64_t range);

/* Per-case check of one completion: 0 if res and data are right. */
typedef int (*wl_check_fn)(uint64_t id, long res, void *arg);

struct wl_reap {
	unsigned nreq;		/* ids are 0..nreq-1 */
	unsigned char *seen;	/* nreq counters, zeroed */
	wl_check_fn check;
	void *arg;
};

/*
 * Count one completion of request id with result res: seen[id] must go
 * from 0 to 1 (a completion for an unknown id, or a second one, is an
 * error the harness must also see) and r->check must accept it.
 */
void wl_account(struct wl_stats *st, struct wl_reap *r, uint64_t id, long res);

/* ---- test files and buffers (files.c) ---------------------------------- */

/* Write all of buf at off (pwrite may be short on signals); 0 or -errno. */
int wl_pwrite_all(int fd, const void *buf, size_t len, off_t off);

/* Test files are removed at exit, on the error paths (wl_die) too. */
void wl_track(const char *path);
void wl_remove_all(void);

/*
 * Create f->path in dir with f's size, seed and data extents (holes stay
 * unwritten), fsync it and drop it from the page cache so the next reads
 * are cold.  Dies on error: nothing to test without the file.
 */
void wl_create(struct wl_file *f, const char *dir, const char *name);

/* Open the test file for cold reads; no readahead so each request waits
 * on its own pages only (what the harness counts sleeps against). */
int wl_open_cold(const struct wl_file *f, int flags);

/*
 * read_ahead_kb=0 on the test device holding dir (a loop device, the
 * harness's scratch fs, or a null_blk), restored at exit: each round trip
 * of a buffered read then reads one folio, issued by whoever runs that
 * round trip.  0 if done, -1 if dir is on another device or the knob is
 * not writable.
 */
int wl_readahead_off(const char *dir);

/* Page-aligned, filled with 0xa5 (not zero: a missed copy must not pass a
 * hole); dies on ENOMEM. */
void *wl_alloc(size_t len);

/* ---- read cases: one request table, both engines (reads.c) ------------- */

/* Request i of a read case: where it reads, how much, into what. */
struct wl_rd {
	uint64_t off;
	size_t len;		/* bytes asked (the iovecs' sum if vectored) */
	char *buf;		/* plain read */
	struct iovec *iov;	/* vectored read, when niov > 0 */
	unsigned niov;
};

/* A read case: the file, its requests (id = index) and their bookkeeping. */
struct wl_reads {
	struct wl_file f;
	struct wl_rd *rd;
	unsigned n;
	char *bufs;		/* n slots, filled with 0xa5 */
	struct wl_reap reap;
};

/* The result of read id must be what the file holds there: exactly up to
 * EOF, every byte matching, nothing written past the result. */
int wl_rd_check(uint64_t id, long res, void *arg);

/* n requests with slot bytes of buffer each; the caller fills c->rd[]. */
void wl_reads_init(struct wl_reads *c, unsigned n, size_t slot);

/* What wl_reads_init allocated. */
void wl_reads_free(struct wl_reads *c);

/* n reads of len bytes at i * stride into consecutive len-byte slots. */
void wl_strided_reads(struct wl_reads *c, unsigned n, uint64_t stride,
		      size_t len);

/* Create c->f in o->dir, drop it from the cache; the fd for cold reads. */
int wl_reads_file(const struct wl_opts *o, struct wl_reads *c);

/*
 * The cases: each fills c from o (exiting EXIT_USAGE if -n/-s do not fit),
 * creates the file and returns the cold fd.
 *  wl_batch_case (*_read_batch, also aio_eventfd, mixed_sync_async): COUNT
 *    4 KiB reads at distinct page-aligned offsets, 64 KiB apart or spread
 *    evenly over -s FILESIZE.
 *  wl_unaligned_case (*_read_unaligned): offsets 4096*k+123, lengths
 *    3000..9000, unaligned buffers, file ends mid-page; the last two cross
 *    EOF (short read of 1000 bytes) and start beyond it (res 0).
 *  wl_iov_case (aio_preadv, uring_readv): five odd-sized iovecs at odd
 *    addresses from unaligned offsets; the last request crosses EOF.
 */
typedef int (*wl_case_fn)(const struct wl_opts *o, struct wl_reads *c);
int wl_batch_case(const struct wl_opts *o, struct wl_reads *c);
int wl_unaligned_case(const struct wl_opts *o, struct wl_reads *c);
int wl_iov_case(const struct wl_opts *o, struct wl_reads *c);

enum wl_engine { WL_LIBAIO, WL_IO_URING };

/*
 * The whole main of a read case: the common flags (o: name and default
 * COUNT), make(o, c) (c: the seed; builds the table, creates the file and
 * returns the cold fd), all reads in one submit on engine, reap, verify,
 * the final line; returns the exit status.  An io_uring ring is set up
 * before the file is created, so that a skip leaves nothing behind.
 */
int wl_reads_main(int argc, char **argv, struct wl_opts *o, struct wl_reads *c,
		  const char *help, wl_case_fn make, enum wl_engine engine);

/* ---- libaio (aio.c) ----------------------------------------------------- */

/* io_setup; skips on ENOSYS/EPERM, dies on other errors. */
void wl_aio_setup(unsigned depth, io_context_t *ctx);
/* The series' fs.aio-buffered-async: 0 (or no such setting) none, 1 the
 * requests with IOCB_FLAG_BUFFERED_ASYNC, 2 every buffered request may go
 * asynchronous. */
int wl_aio_async_mode(void);
/* Whether this kernel resumes in workers the buffered libaio requests that
 * do not ask for it (fs.aio-buffered-async is 2, as the guest sets it). */
bool wl_aio_buffered_async(void);
/* aio_flags bit of include/uapi/linux/aio_abi.h with the series; kernels
 * without it ignore it */
#ifndef IOCB_FLAG_BUFFERED_ASYNC
#define IOCB_FLAG_BUFFERED_ASYNC (1 << 2)
#endif

/* Submit all n iocbs, looping over partial submissions.  Returns how many
 * the kernel accepted (counted as submitted even if a later call fails). */
unsigned wl_aio_submit_all(io_context_t ctx, struct iocb **iocbs, unsigned n);

/* Submit n iocbs (one io_submit, continued if partial) and count them;
 * fewer accepted than n is an error.  Returns how many were accepted. */
unsigned wl_aio_submit(io_context_t ctx, struct iocb **iocbs, unsigned n,
		       struct wl_stats *st);
/* The same for an array of n iocbs. */
unsigned wl_aio_submit_iocbs(io_context_t ctx, struct iocb *cbs, unsigned n,
			     struct wl_stats *st);

/* wl_account each of n io_events. */
void wl_aio_account(struct wl_stats *st, struct wl_reap *r,
		    const struct io_event *ev, int n);

/* io_getevents until nr more requests are reaped (or timeout); never
 * more than nr, so the rest stay in the ring. */
void wl_aio_reap_n(io_context_t ctx, struct wl_stats *st, struct wl_reap *r,
		   uint64_t nr);
/* io_getevents until nr requests are reaped or deadline_s seconds have
 * passed; how many were reaped (the rest stay in flight). */
uint64_t wl_aio_reap_within(io_context_t ctx, struct wl_stats *st,
			    struct wl_reap *r, uint64_t nr, int deadline_s);
/* io_getevents until every submitted request is reaped (or timeout). */
void wl_aio_reap(io_context_t ctx, struct wl_stats *st, struct wl_reap *r);
/* After the last expected completion nothing more may arrive. */
void wl_aio_expect_idle(io_context_t ctx, struct wl_stats *st,
			struct wl_reap *r);

/* Submit, reap every completion, then make sure nothing else arrives. */
void wl_aio_run(io_context_t ctx, struct iocb *cbs, unsigned n,
		struct wl_stats *st, struct wl_reap *r);

/* libaio: one iocb per request of c (aio_data = id), not yet submitted. */
struct iocb *wl_aio_prep_reads(const struct wl_reads *c, int fd);

/* n cold 4 KiB reads of f, a page apart, described in c, as iocbs in ptrs
 * (an array of n; the iocbs are allocated and live as long as the
 * program); the cold fd. */
int wl_aio_cold_reads(const struct wl_file *f, unsigned n, struct wl_reads *c,
		      struct iocb **ptrs);

/* The whole libaio side of a read case: its own context, one io_submit. */
void wl_aio_reads(struct wl_reads *c, int fd, struct wl_stats *st);

/* ---- io_uring (uring.c) ------------------------------------------------- */

/* io_uring_queue_init; skips on ENOSYS/EPERM, dies on other errors. */
void wl_uring_setup(unsigned entries, struct io_uring *ring);

/* Submit everything queued in the SQ; returns how many were accepted. */
unsigned wl_uring_submit_all(struct io_uring *ring, unsigned n);

/* Wait for CQEs until every submitted request is reaped (or timeout). */
/* The next CQE (to be marked seen by the caller); a wait longer than
 * WL_TIMEOUT_S or an error ends the program (wl_die). */
struct io_uring_cqe *wl_uring_wait(struct io_uring *ring);
void wl_uring_reap(struct io_uring *ring, struct wl_stats *st,
		   struct wl_reap *r);
/* After the last expected completion nothing more may arrive. */
void wl_uring_expect_idle(struct io_uring *ring, struct wl_stats *st,
			  struct wl_reap *r);

/* The whole io_uring side of a read case on ring (set up by the caller,
 * before creating files, so that a skip leaves nothing behind). */
void wl_uring_reads(struct wl_reads *c, struct io_uring *ring, int fd,
		    struct wl_stats *st);

/* ---- buffers that stall (uffd.c) ----------------------------------------- */

/* len bytes of anonymous memory in *buf, registered with a new
 * userfaultfd (O_NONBLOCK): every first touch waits until the holder of
 * the returned descriptor serves it.  The descriptor, or -errno. */
int wl_uffd_region(size_t len, char **buf);
/* How many tasks wait in the faults of this userfaultfd, served or not
 * (its /proc/self/fdinfo "total"): only this program's, unlike a scan of
 * every task's wchan. */
unsigned wl_uffd_waiters(int uffd);
/* n cold reads of len bytes of f (back to back) into a new userfaultfd
 * region, described in c, as iocbs in *ptrs ready for one io_submit on
 * the new context *ctx.  The userfaultfd; -ENOMEM if the iocbs or the
 * context could not be had; else the region's -errno. */
int wl_uffd_reads(const struct wl_file *f, unsigned n, size_t len,
		  struct wl_reads *c, io_context_t *ctx, struct iocb ***ptrs);
/* len bytes of msg over unix socket sock, with fd attached if >= 0;
 * and the receiving side (*fd set only when one came).  0 or -1. */
int wl_send_fd(int sock, const void *msg, size_t len, int fd);
int wl_recv_fd(int sock, void *msg, size_t len, int *fd);

/* Fork with a unix SOCK_SEQPACKET socket between parent and child: 0 in
 * the child, the child's pid in the parent; *sock is the caller's end. */
pid_t wl_fork_socket(int *sock);

/* Fork a child that runs fn(f, n, sock) and must first send a message of
 * len bytes that starts with an int errno (0: fine) and carries its
 * userfaultfd; receive it into msg and *uffd.  Skips the program
 * (wl_skip) when the child could not have one; fails it (wl_die) when
 * the child ends before it sends anything.  The child's pid; *sock
 * is the parent's end of the socket. */
typedef void (*wl_uffd_child_fn)(const struct wl_file *f, unsigned n, int sock);
pid_t wl_uffd_child(wl_uffd_child_fn fn, const struct wl_file *f, unsigned n,
		    void *msg, size_t len, int *uffd, int *sock);

/* ---- one process's stalled reads beside another's (stall.c) -------------- */

/* The whole of aio_uffd_stall and aio_ctx_stall: a child's o->count reads
 * into userfaultfd pages nobody serves yet, spread over @contexts
 * contexts; the parent's 64 cold reads must complete within 10 s, then
 * the child's once their faults are served.  The exit status. */
int wl_stall_main(int argc, char **argv, struct wl_opts *o, unsigned contexts,
		  const char *help);

#endif
