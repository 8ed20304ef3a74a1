// SPDX-License-Identifier: GPL-2.0
/*
 * aio_read_unprivileged: aio_read_batch's COUNT (default 64) cold 4 KiB
 * buffered reads, submitted as user nobody (euid/fsuid and egid 65534,
 * no effective capabilities) once the files are made and opened as root.
 *
 * The identity of the submitter is what a resumed request must be done
 * with: on a patched kernel the aio worker adopts the submitter's
 * credentials (override_creds), and the tracer compares the worker's at
 * resume with the submitter's at submit (resume_context).  As root both
 * would be root and a worker that kept its own could not be told apart.
 * The saved set-user-ID stays 0 so the files can be removed as root at
 * the end.  Run by a non-root user it just runs as that user.
 */
#include <grp.h>
#include "lib/wl.h"

#define NOBODY 65534

static const char help[] =
	"COUNT (64) cold 4 KiB buffered reads in one io_submit, as user nobody.\n"
	"  -s FILESIZE  file size; requests are spread evenly (default COUNT*64k)\n";

static void become_root(void)
{
	/* before the files are removed (atexit runs this first) */
	if (setresuid(0, 0, 0) || setresgid(0, 0, 0))
		fprintf(stderr, "aio_read_unprivileged: cannot regain root: %s\n",
			strerror(errno));
}

static int nobody_case(const struct wl_opts *o, struct wl_reads *c)
{
	int fd = wl_batch_case(o, c);

	if (geteuid() != 0)
		return fd;
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, 0) ||
	    setresuid(NOBODY, NOBODY, 0))
		wl_die("dropping to user nobody", errno);
	atexit(become_root);
	return fd;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_read_unprivileged", .count = 64 };
	struct wl_reads c = { .f.seed = 0x90b0d1 };

	return wl_reads_main(argc, argv, &o, &c, help, nobody_case, WL_LIBAIO);
}
