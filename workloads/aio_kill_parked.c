// SPDX-License-Identifier: GPL-2.0
/*
 * aio_kill_parked: the submitter of a read whose resumed copy is parked in
 * a worker is killed; its address space must then be torn down, not
 * deadlock the worker that drops the last reference to it.
 *
 * A child registers a 256 KiB buffer with userfaultfd, hands the
 * descriptor to the parent and submits a cold 256 KiB read into it (COUNT
 * reads, default 1, in one io_submit).  On a patched kernel the read is
 * resumed in an aio worker, whose copy to the buffer waits in
 * handle_userfault() holding a reference on the child's mm
 * (mmget_not_zero).  The parent kills the child, which must be reaped
 * within 10 s, drops the file's pages the parked copy does not hold
 * (POSIX_FADV_DONTNEED) and closes the userfaultfd.  The copy then goes
 * on, meets a page no longer cached and re-arms the request: the worker,
 * which holds the last reference to the mm (with one read, no other
 * task does), returns with its request still in flight.  Were it to tear
 * the mm down itself (mmput(), not mmput_async()), exit_aio() would wait
 * for that request, whose wake queues the very work item the worker is
 * still running, and a work item never runs twice at once: the worker
 * would sleep in exit_aio() forever.  So for 6 s the parent looks for a
 * kernel worker whose stack is in exit_aio (/proc/PID/stack) and counts
 * one that stays there 3 s as an error.
 *
 * Where every buffered read may go asynchronous (fs.aio-buffered-async=2)
 * and the read was still done in io_submit() (the device read the page
 * before the wait was armed: a loop device on tmpfs can), the round is
 * run again with a new child, up to 5 times, and a read that never went
 * asynchronous is an error: nothing was tested.
 *
 * On a stock kernel the child sleeps in io_submit() itself, in the first
 * fault, and the kill ends it; nothing waits in a worker.  The reads are
 * never reaped: abandoned=COUNT.  Skips where userfaultfd is unavailable.
 */
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "lib/wl.h"

#define EXIT_DEADLINE	10	/* s: the killed submitter is reaped */
#define WATCH_SECONDS	6	/* s: nothing sleeps in exit_aio for long */
#define STUCK_SECONDS	3
/* more than a parked copy holds (a folio batch, 31 pages) and than the
 * first readahead window: a resumed copy meets an uncached page */
#define READ_LEN	(256 * 1024)
#define ATTEMPTS	5	/* until the read goes asynchronous */

static const char help[] =
	"A child's COUNT (1) cold 256 KiB reads into userfaultfd buffers park in aio\n"
	"workers; the child is killed, the file's unheld pages dropped and the\n"
	"userfaultfd closed, so the resumed reads re-arm: the child must be reaped\n"
	"within 10 s and no task may stay in exit_aio.  Needs userfaultfd (root).\n";

struct msg {
	int err;	/* setting up the buffers failed: errno */
	int accepted;	/* io_submit returned: how many it took */
};

static void submitter(const struct wl_file *f, unsigned n, int sock)
{
	struct msg m = { 0 };
	struct wl_reads c = { 0 };
	struct iocb **ptrs;
	io_context_t ctx;
	int uffd;

	uffd = wl_uffd_reads(f, n, READ_LEN, &c, &ctx, &ptrs);
	if (uffd == -ENOMEM)
		_exit(1);
	if (uffd < 0) {
		m.err = -uffd;
		wl_send_fd(sock, &m, sizeof(m), -1);
		_exit(0);
	}
	if (wl_send_fd(sock, &m, sizeof(m), uffd))
		_exit(1);
	close(uffd);	/* the parent holds the only one: its close ends the faults */
	/* stock: sleeps here, in the first fault, until killed */
	m.accepted = wl_aio_submit_all(ctx, ptrs, n);
	wl_send_fd(sock, &m, sizeof(m), -1);
	for (;;)
		pause();
}

/* A kernel worker whose stack is in exit_aio now: its pid, or 0.  Only
 * workers: a process of another user tearing its own contexts down
 * (exit_aio in its own exit) is not this program's business. */
static pid_t in_exit_aio(char *comm, size_t len)
{
	struct dirent *d;
	DIR *proc = opendir("/proc");
	pid_t found = 0;

	if (!proc)
		wl_die("opendir /proc", errno);
	while (!found && (d = readdir(proc))) {
		char path[64], line[256];
		FILE *f;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, len, f))
			comm[0] = 0;
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
		if (strncmp(comm, "kworker/", 8))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stack", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (strstr(line, " exit_aio+")) {
				found = atoi(d->d_name);
				break;
			}
		fclose(f);
	}
	closedir(proc);
	return found;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_kill_parked", .count = 1 };
	struct wl_file f = { .seed = 0x4b1 };
	struct wl_stats st = { 0 };
	struct msg m = { 0 };
	int sock, status = 0, uffd = -1, stuck = 0, fd, err, attempt;
	struct pollfd p;
	char comm[32] = "";
	pid_t child, w = 0;
	double t0;

	wl_getopt(argc, argv, &o, help, "", NULL);
	if (access("/proc/self/stack", R_OK))
		wl_skip("/proc/PID/stack unreadable (not root, or no CONFIG_STACKTRACE)", errno);
	f.size = (uint64_t)o.count * READ_LEN;
	wl_create(&f, o.dir, "aio_kill_parked");
	for (attempt = 1;; attempt++) {
		child = wl_uffd_child(submitter, &f, o.count, &m, sizeof(m), &uffd, &sock);
		st.submitted += o.count;
		/* patched: io_submit returns and the copies park in the
		 * workers; stock: it does not return */
		p = (struct pollfd){ .fd = sock, .events = POLLIN };
		if (poll(&p, 1, 3000) == 1 && !wl_recv_fd(sock, &m, sizeof(m), NULL)) {
			printf("# io_submit took %d reads; their copies wait in the workers\n",
			       m.accepted);
			break;
		}
		printf("# io_submit still sleeps in the first fault\n");
		if (!wl_aio_buffered_async())
			break;	/* as it should: no async reads here */
		/* the device read the page before the wait was armed (a loop
		 * device on tmpfs can), so the read was done in place */
		if (attempt == ATTEMPTS) {
			fprintf(stderr, "no read went asynchronous in %d attempts: nothing was "
				"tested\n", ATTEMPTS);
			st.errors++;
			break;
		}
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		close(sock);
		close(uffd);
	}
	sleep(1);

	kill(child, SIGKILL);
	t0 = wl_now();
	while (wl_now() - t0 < EXIT_DEADLINE && (w = waitpid(child, &status, WNOHANG)) == 0)
		usleep(10000);
	if (w != child) {
		fprintf(stderr, "killed submitter %d not reaped within %d s\n", child, EXIT_DEADLINE);
		st.errors++;
	} else {
		printf("# killed submitter reaped in %.1f ms\n", (wl_now() - t0) * 1e3);
	}
	/* the pages the parked copy has not taken yet: once resumed it must
	 * read one again, and re-arm its request */
	fd = open(f.path, O_RDONLY);
	if (fd < 0)
		wl_die(f.path, errno);
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (err)
		wl_die("posix_fadvise(POSIX_FADV_DONTNEED)", err);
	close(fd);
	close(uffd);	/* the parked copy goes on; its worker drops the mm */

	for (t0 = wl_now(); wl_now() - t0 < WATCH_SECONDS; usleep(100000)) {
		pid_t pid = in_exit_aio(comm, sizeof(comm));
		static pid_t last;
		static double since;

		if (!pid || pid != last) {
			last = pid;
			since = wl_now();
			continue;
		}
		if (wl_now() - since >= STUCK_SECONDS) {
			fprintf(stderr, "%s (pid %d) has slept in exit_aio for %d s: the worker "
				"that dropped the last mm reference waits for its own request\n",
				comm, pid, STUCK_SECONDS);
			stuck = 1;
			break;
		}
	}
	st.errors += stuck;
	if (w != child) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	/* accepted by the kernel, never reaped: the children are gone */
	st.abandoned = st.submitted;
	return wl_finish(&o, "libaio", &st);
}
