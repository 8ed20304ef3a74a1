// SPDX-License-Identifier: GPL-2.0
/*
 * aio_read_pkey: COUNT (default 16) cold 4 KiB buffered libaio reads into a
 * buffer under a memory protection key only the submitting thread may
 * write (pkey_alloc(), pkey_mprotect()); every byte is verified.
 *
 * A synchronous read copies in the submitter, whose PKRU grants the key.
 * A read resumed elsewhere must copy with the same rights: io_uring's
 * task_work runs in the submitter and its io-wq threads copy the
 * submitter's PKRU.  A kernel worker that adopts the submitter's mm
 * (kthread_use_mm()) keeps its own PKRU, the default that denies keys
 * 1-15: its copy faults, and the read ends -EFAULT or short where a
 * synchronous one succeeds.  With the series the trace shows where each
 * copy ran (the resume records' context).  Skips where the CPU or kernel
 * has no protection keys (pkey_alloc fails).
 */
#include <sys/mman.h>

#include "lib/wl.h"

static const char help[] =
	"COUNT (16) cold 4 KiB reads into a buffer under a protection key only the\n"
	"submitter may write, all verified.  Skips without protection keys.\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_read_pkey", .count = 16 };
	struct wl_reads c = { .f.seed = 0x9e7 };
	struct wl_stats st = { 0 };
	io_context_t probe;
	int pkey, fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	pkey = pkey_alloc(0, 0);	/* this thread: read and write */
	if (pkey < 0)
		wl_skip("no memory protection keys (pkey_alloc)", errno);
	wl_aio_setup(1, &probe);	/* skip here, before files exist */
	io_destroy(probe);
	fd = wl_batch_case(&o, &c);
	/* the pages are present (filled with 0xa5): only the key can refuse */
	if (pkey_mprotect(c.bufs, (size_t)c.n * WL_PAGE, PROT_READ | PROT_WRITE, pkey))
		wl_die("pkey_mprotect", errno);
	printf("# %u reads into a buffer under protection key %d\n", c.n, pkey);
	wl_aio_reads(&c, fd, &st);
	if (st.errors)
		fprintf(stderr, "%" PRIu64 " of %u reads into the key's pages failed: a copy ran "
			"without the submitter's protection-key rights\n", st.errors, c.n);
	close(fd);
	return wl_finish(&o, "libaio", &st);
}
