// SPDX-License-Identifier: GPL-2.0
/* Start, relay and reap the traced child (run/child.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "run/child.h"

/* Bytes relayed per child_read(): the pipe is drained in 64 KiB reads, up
 * to this much before the loop looks at the clock and the child again. */
#define RELAY_BURST	(4 << 20)
#define SUMMARY_MARK	"fsaio-workload:"

/* Append to the partial line; a line longer than c->line is cut. */
static void line_add(struct child *c, const char *p, size_t n)
{
	size_t keep = sizeof(c->line) - 1 - c->len;

	if (n > keep)
		n = keep;
	memcpy(c->line + c->len, p, n);
	c->len += n;
}

/* A whole line: the summary is caught, other lines shown with -v. */
static void line_end(struct child *c)
{
	c->line[c->len] = '\0';
	if (!workload_parse_summary(c->line, &c->report) || verbose)
		printf("    # | %s\n", c->line);
	c->len = 0;
}

/* Relay one read of the workload's stdout as KTAP diagnostics; catch its
 * summary.  Returns the bytes read, 0 when there is nothing (now).  Whole
 * lines without the summary mark are skipped in one memmem() unless -v:
 * a chatty command is relayed at pipe speed. */
static ssize_t child_read_once(struct child *c)
{
	static char buf[65536];
	ssize_t n = read(c->out_fd, buf, sizeof(buf));
	const char *p = buf, *end, *nl;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		if (n < 0)
			fsaio_err("reading the workload's output: %s", strerror(errno));
		close(c->out_fd);
		c->out_fd = -1;
		if (c->len)
			line_end(c);	/* a last unterminated line */
		return 0;
	}
	end = buf + n;
	if (c->len) {		/* finish the line the last read began */
		nl = memchr(p, '\n', end - p);
		if (!nl) {
			line_add(c, p, end - p);
			return n;
		}
		line_add(c, p, nl - p);
		line_end(c);
		p = nl + 1;
	}
	nl = p < end ? memrchr(p, '\n', end - p) : NULL;
	if (nl && (verbose || memmem(p, nl - p, SUMMARY_MARK, strlen(SUMMARY_MARK)))) {
		while (p <= nl) {
			const char *e = memchr(p, '\n', nl + 1 - p);

			line_add(c, p, e - p);
			line_end(c);
			p = e + 1;
		}
	}
	if (nl)
		p = nl + 1;
	line_add(c, p, end - p);
	return n;
}

static void child_read(struct child *c)
{
	size_t total = 0;
	ssize_t n;

	while (c->out_fd >= 0 && total < RELAY_BURST &&
	       (n = child_read_once(c)) > 0)
		total += n;
	fflush(stdout);
}

/*
 * Live processes in process group pgid, from /proc: the census of the
 * fallback without cgroup v2.
 */
static int pgrp_count(pid_t pgid)
{
	char path[64], buf[512], *s, state;
	struct dirent *de;
	DIR *d = opendir("/proc");
	int n = 0, fd, pgrp;
	ssize_t len;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* "pid (comm) state ppid pgrp ...": comm may hold spaces */
		s = strrchr(buf, ')');
		if (s && sscanf(s + 1, " %c %*d %d", &state, &pgrp) == 2 &&
		    pgrp == pgid && state != 'Z' && state != 'X')
			n++;
	}
	closedir(d);
	return n;
}

/* The child's tree: its cgroup, or its process group in the fallback. */
static bool tree_alive(const struct child *c)
{
	if (c->cg.path[0])
		return run_cgroup_populated(&c->cg);
	return pgrp_count(c->pid) > 0;
}

/* SIGKILL the tree; returns how many processes it had. */
static int tree_kill(const struct child *c)
{
	int n;

	if (c->cg.path[0])
		return run_cgroup_kill(&c->cg);
	n = pgrp_count(c->pid);
	kill(-c->pid, SIGKILL);
	return n;
}

static void close_pair(int p[2])
{
	close(p[0]);
	close(p[1]);
}

int child_start(struct child *c, char *const argv[], const char *dir,
		int (*track)(pid_t pid, void *ctx), void *ctx)
{
	static bool said;
	int out[2], go[2], errp[2], e = 0, ret;
	pid_t parent;
	char ch, why[1024];

	memset(c, 0, sizeof(*c));
	c->out_fd = -1;
	if (pipe2(out, O_CLOEXEC)) {
		fsaio_err("pipe: %s", strerror(errno));
		return EXIT_ERROR;
	}
	if (pipe2(go, O_CLOEXEC)) {
		fsaio_err("pipe: %s", strerror(errno));
		close_pair(out);
		return EXIT_ERROR;
	}
	if (pipe2(errp, O_CLOEXEC)) {
		fsaio_err("pipe: %s", strerror(errno));
		close_pair(out);
		close_pair(go);
		return EXIT_ERROR;
	}
	parent = getpid();
	c->pid = fork();
	if (c->pid < 0) {
		fsaio_err("fork: %s", strerror(errno));
		close_pair(out);
		close_pair(go);
		close_pair(errp);
		return EXIT_ERROR;
	}
	if (c->pid == 0) {
		/* fsaio killed (SIGKILL, the OOM killer) takes the command with
		 * it; what the command started is ended by the next fsaio
		 * (run_cgroup_reap_orphans).  The parent may be gone already. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		setpgid(0, 0);	/* so a timeout can kill the whole tree */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);	/* ignored dispositions survive exec */
		dup2(out[1], STDOUT_FILENO);
		if (dir)
			setenv("FSAIO_DIR", dir, 1);
		if (read(go[0], &ch, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(out[1]);
	close(go[0]);
	close(errp[1]);
	/* Before its exec, so nothing it starts is born outside. */
	if (run_cgroup_enter(&c->cg, c->pid, why, sizeof(why)) && !said) {
		fsaio_info("no cgroup of its own for the command (%s): its process"
			   " group stands in, which setsid() or setpgid() escapes", why);
		said = true;
	}
	ret = track(c->pid, ctx);
	if (ret) {
		/* Untraced, its counts would be wrong: do not run it at all. */
		fsaio_err("cannot trace the workload (pid %d): %s", c->pid, strerror(-ret));
		kill(c->pid, SIGKILL);
		close(go[1]);
		close(errp[0]);
		close(out[0]);
		waitpid(c->pid, NULL, 0);
		run_cgroup_destroy(&c->cg, END_DEADLINE_S);
		return EXIT_ERROR;
	}
	if (write(go[1], "g", 1) != 1)
		fsaio_err("cannot start workload: %s", strerror(errno));
	close(go[1]);
	if (read(errp[0], &e, sizeof(e)) == sizeof(e)) {
		close(errp[0]);
		close(out[0]);
		waitpid(c->pid, NULL, 0);
		run_cgroup_destroy(&c->cg, END_DEADLINE_S);
		fsaio_err("cannot run '%s': %s", argv[0], strerror(e));
		return EXIT_USAGE;
	}
	close(errp[0]);
	c->out_fd = out[0];
	fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

/*
 * Three phases, each with a deadline: the child runs (until the timeout);
 * it has exited and what it left runs on (LEFTOVER_GRACE_S); the tree was
 * killed, or is gone but its stdout is still open (END_DEADLINE_S).
 */
void child_wait(struct child *c, int timeout)
{
	double until = now_seconds() + timeout;
	bool exited = false, ended = false;

	for (;;) {
		struct pollfd pfd = { .fd = c->out_fd, .events = POLLIN };
		int n;

		if (c->out_fd < 0) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		} else {
			/* wakes at once for output; 20 ms bounds how late
			 * an exit or the deadline is noticed */
			n = poll(&pfd, 1, 20);
			if (n > 0)
				child_read(c);
			else if (n < 0 && errno != EINTR) {
				fsaio_err("poll: %s; no more workload output", strerror(errno));
				close(c->out_fd);
				c->out_fd = -1;
			}
		}
		if (!exited && waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
			exited = true;
			if (!ended)
				until = now_seconds() + LEFTOVER_GRACE_S;
		}
		if (ended) {
			if ((exited && c->out_fd < 0 && !tree_alive(c)) ||
			    now_seconds() > until)
				break;
			continue;
		}
		if (exited && !tree_alive(c)) {
			if (c->out_fd < 0)
				break;
			/* Only the pipe is left: EOF is near, or someone
			 * outside the tree holds it. */
			ended = true;
			until = now_seconds() + END_DEADLINE_S;
			continue;
		}
		if (fsaio_interrupted || now_seconds() > until) {
			c->timed_out = !exited && !fsaio_interrupted;
			c->interrupted = fsaio_interrupted;
			c->killed = tree_kill(c);
			ended = true;
			until = now_seconds() + END_DEADLINE_S;
		}
	}
	if (!exited)
		fsaio_err("pid %d still not dead %d s after SIGKILL (stuck in the kernel?)",
			  c->pid, END_DEADLINE_S);
	if (c->out_fd >= 0) {
		fsaio_err("the command's stdout is still open after its %s ended"
			  " (held by a process outside it); stopped relaying",
			  c->cg.path[0] ? "cgroup" : "process group");
		c->output_cut = true;
		close(c->out_fd);
		c->out_fd = -1;
	}
	if (!c->cg.path[0] && exited && tree_alive(c))
		fsaio_err("processes of group %d outlived SIGKILL", c->pid);
	run_cgroup_destroy(&c->cg, 1);
}
