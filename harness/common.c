// SPDX-License-Identifier: GPL-2.0
/* Diagnostics, signals, clock and kernel release shared by every layer. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include "common.h"

bool verbose;
volatile int fsaio_interrupted;

void fsaio_err(const char *fmt, ...)
{
	va_list ap;

	fputs("fsaio: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void fsaio_info(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	fputs("fsaio: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_signal(int sig)
{
	fsaio_interrupted = sig;
}

void fsaio_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* No SA_RESTART: blocking calls return EINTR and loops notice. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Past RLIMIT_FSIZE a write fails with EFBIG, which the log and JSON
	 * writers report and clean up after, as for ENOSPC; the default
	 * action would kill fsaio and leave the traced tree running. */
	signal(SIGXFSZ, SIG_IGN);
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "unknown";
	return u.release;
}


bool fsaio_pid_dead(pid_t pid)
{
	char path[64], buf[512], *comm, *end, state;
	FILE *f;
	size_t n;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) state ...": a zombie is dead, whatever its name */
	comm = strchr(buf, '(');
	end = strrchr(buf, ')');
	if (!comm || !end || sscanf(end + 1, " %c", &state) != 1)
		return false;
	*end = '\0';
	return state == 'Z' || state == 'X' || strcmp(comm + 1, "fsaio");
}
