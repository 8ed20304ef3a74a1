// SPDX-License-Identifier: GPL-2.0
/* Start, relay and reap the traced child (run/child.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"
#include "run/child.h"

/* Relay the workload's stdout as KTAP diagnostics; catch its summary. */
static void child_read(struct child *c)
{
	char buf[4096];
	ssize_t n = read(c->out_fd, buf, sizeof(buf));
	ssize_t i;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (n < 0)
			fsaio_err("reading the workload's output: %s", strerror(errno));
		close(c->out_fd);
		c->out_fd = -1;
		n = 0;
		buf[n++] = '\n';	/* flush a last unterminated line */
		if (!c->len)
			return;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] != '\n' && c->len < sizeof(c->line) - 1) {
			c->line[c->len++] = buf[i];
			continue;
		}
		if (buf[i] != '\n')
			continue;
		c->line[c->len] = '\0';
		if (!workload_parse_summary(c->line, &c->report) || verbose)
			printf("    # | %s\n", c->line);
		c->len = 0;
	}
	fflush(stdout);
}

static void close_pair(int p[2])
{
	close(p[0]);
	close(p[1]);
}

int child_start(struct child *c, char *const argv[], const char *dir,
		int (*track)(pid_t pid, void *ctx), void *ctx)
{
	int out[2], go[2], errp[2], e = 0, ret;
	char ch;

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
	c->pid = fork();
	if (c->pid < 0) {
		fsaio_err("fork: %s", strerror(errno));
		close_pair(out);
		close_pair(go);
		close_pair(errp);
		return EXIT_ERROR;
	}
	if (c->pid == 0) {
		setpgid(0, 0);	/* so a timeout can kill the whole tree */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
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
	ret = track(c->pid, ctx);
	if (ret) {
		/* Untraced, its counts would be wrong: do not run it at all. */
		fsaio_err("cannot trace the workload (pid %d): %s", c->pid, strerror(-ret));
		kill(c->pid, SIGKILL);
		close(go[1]);
		close(errp[0]);
		close(out[0]);
		waitpid(c->pid, NULL, 0);
		return EXIT_ERROR;
	}
	if (write(go[1], "g", 1) != 1)
		fsaio_err("cannot start workload: %s", strerror(errno));
	close(go[1]);
	if (read(errp[0], &e, sizeof(e)) == sizeof(e)) {
		close(errp[0]);
		close(out[0]);
		waitpid(c->pid, NULL, 0);
		fsaio_err("cannot run '%s': %s", argv[0], strerror(e));
		return EXIT_USAGE;
	}
	close(errp[0]);
	c->out_fd = out[0];
	fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

void child_wait(struct child *c, int timeout, void (*tick)(void *ctx), void *ctx)
{
	double deadline = now_seconds() + timeout;
	bool exited = false;

	while (!exited || c->out_fd >= 0) {
		struct pollfd pfd = { .fd = c->out_fd, .events = POLLIN };
		int n;

		tick(ctx);
		if (c->out_fd >= 0) {
			n = poll(&pfd, 1, 0);
			if (n > 0)
				child_read(c);
			else if (n < 0 && errno != EINTR) {
				fsaio_err("poll: %s; no more workload output", strerror(errno));
				close(c->out_fd);
				c->out_fd = -1;
			}
		}
		if (!exited && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
			exited = true;
		if (exited)
			continue;
		if (fsaio_interrupted || now_seconds() > deadline) {
			c->timed_out = !fsaio_interrupted;
			c->interrupted = fsaio_interrupted;
			kill(-c->pid, SIGKILL);
			waitpid(c->pid, &c->status, 0);
			exited = true;
		}
	}
}
