// SPDX-License-Identifier: GPL-2.0
/*
 * The traced command's own cgroup v2 (run/cgroup.h).
 *
 * Only the cgroup core files are used (cgroup.procs, cgroup.events,
 * cgroup.kill): no controller is enabled, so the "no internal processes"
 * rule does not stop the move, and a cgroup fsaio does not own is never
 * written to except by creating a child in it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "run/cgroup.h"

#define LIVE_MAX	4

/* Paths, not pointers: a struct that went out of scope is still cleaned. */
static char live[LIVE_MAX][PATH_MAX];

static void live_set(const char *path, const char *to)
{
	for (int i = 0; i < LIVE_MAX; i++) {
		if (!strcmp(live[i], path)) {
			snprintf(live[i], sizeof(live[i]), "%s", to);
			return;
		}
	}
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int write_file(const char *dir, const char *name, const char *s)
{
	char p[PATH_MAX];
	int fd, ret = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Append "; what" to why. */
static void add_why(char *why, size_t len, const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	if (n && n + 2 < len) {
		strcpy(why + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + n, len - n, fmt, ap);
	va_end(ap);
}

/* Where the unified hierarchy is mounted: the first cgroup2 in mountinfo. */
static int unified_mount(char *mnt, size_t len)
{
	char line[2 * PATH_MAX], mp[PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* id parent dev root mountpoint opts [tags] - fstype ... */
		if (!strstr(line, " - cgroup2 ") ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		snprintf(mnt, len, "%s", mp);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* fsaio's own cgroup v2 path ("0::/a/b" in /proc/self/cgroup). */
static int own_cgroup(char *path, size_t len)
{
	char line[PATH_MAX + 8];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, len, "%s", line + 3);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* Count (and with sig, signal) the processes in dir and its children. */
static int procs(const char *dir, int sig)
{
	char p[PATH_MAX];
	struct dirent *de;
	FILE *f;
	DIR *d;
	int pid, n = 0, m;

	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	f = fopen(p, "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%d", &pid) == 1) {
		if (sig)
			kill(pid, sig);
		n++;
	}
	fclose(f);
	d = opendir(dir);
	if (!d)
		return n;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		m = procs(p, sig);
		if (m > 0)
			n += m;
	}
	closedir(d);
	return n;
}

/* rmdir dir after the cgroups the command may have made inside it. */
static int remove_tree(const char *dir)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d) {
		while ((de = readdir(d))) {
			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			remove_tree(p);
		}
		closedir(d);
	}
	return rmdir(dir) ? -errno : 0;
}

int run_cgroup_enter(struct run_cgroup *cg, pid_t pid, char *why, size_t len)
{
	static unsigned int seq;
	char mnt[PATH_MAX], own[PATH_MAX], parent[2][PATH_MAX], pidstr[16];
	int i, nr = 0, ret;

	cg->path[0] = '\0';
	why[0] = '\0';
	ret = unified_mount(mnt, sizeof(mnt));
	if (ret) {
		snprintf(why, len, "no cgroup v2 hierarchy mounted");
		return ret;
	}
	/* Under our own cgroup first: that one is delegated to us if any is. */
	if (!own_cgroup(own, sizeof(own)) && strcmp(own, "/"))
		snprintf(parent[nr++], PATH_MAX, "%s%s", mnt, own);
	snprintf(parent[nr++], PATH_MAX, "%s", mnt);
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	for (i = 0; i < nr; i++) {
		snprintf(cg->path, sizeof(cg->path), "%s/fsaio-%d-%u", parent[i],
			 getpid(), seq++);
		if (mkdir(cg->path, 0755)) {
			ret = -errno;
			add_why(why, len, "mkdir %s: %s", cg->path, strerror(errno));
			continue;
		}
		ret = write_file(cg->path, "cgroup.procs", pidstr);
		if (!ret) {
			live_set("", cg->path);
			return 0;
		}
		add_why(why, len, "moving pid %d into %s: %s", pid, cg->path,
			strerror(-ret));
		rmdir(cg->path);
	}
	cg->path[0] = '\0';
	return ret;
}

int run_cgroup_count(const struct run_cgroup *cg)
{
	return procs(cg->path, 0);
}

bool run_cgroup_populated(const struct run_cgroup *cg)
{
	char p[PATH_MAX], buf[256];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/cgroup.events", cg->path);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	return !strstr(buf, "populated 0");
}

int run_cgroup_kill(const struct run_cgroup *cg)
{
	int n = procs(cg->path, 0);

	if (n <= 0)
		return 0;
	/* cgroup.kill also stops forks racing with it; without it, repeat. */
	if (!write_file(cg->path, "cgroup.kill", "1"))
		return n;
	n = procs(cg->path, SIGKILL);
	return n > 0 ? n : 0;
}

int run_cgroup_destroy(struct run_cgroup *cg, double timeout)
{
	double end = now_seconds() + timeout;
	int ret = 0;

	if (!cg->path[0])
		return 0;
	for (;;) {
		if (!run_cgroup_populated(cg)) {
			ret = remove_tree(cg->path);
			if (!ret || ret == -ENOENT) {
				ret = 0;
				break;
			}
		}
		if (now_seconds() > end) {
			ret = -EBUSY;
			fsaio_err("cgroup %s: %d processes still there %.0f s after SIGKILL;"
				  " left behind", cg->path, run_cgroup_count(cg), timeout);
			break;
		}
		run_cgroup_kill(cg);
		nap_ms(10);
	}
	live_set(cg->path, "");
	cg->path[0] = '\0';
	return ret;
}

int run_cgroup_reap_orphans(void)
{
	char mnt[PATH_MAX], own[PATH_MAX], parent[2][PATH_MAX];
	int i, nr = 0, reaped = 0;

	if (unified_mount(mnt, sizeof(mnt)))
		return 0;
	if (!own_cgroup(own, sizeof(own)) && strcmp(own, "/"))
		snprintf(parent[nr++], PATH_MAX, "%s%s", mnt, own);
	snprintf(parent[nr++], PATH_MAX, "%s", mnt);
	for (i = 0; i < nr; i++) {
		DIR *d = opendir(parent[i]);
		struct dirent *de;

		if (!d)
			continue;
		while ((de = readdir(d))) {
			struct run_cgroup cg;
			unsigned int n;
			int pid, killed;

			if (de->d_type != DT_DIR ||
			    sscanf(de->d_name, "fsaio-%d-%u", &pid, &n) != 2 ||
			    !fsaio_pid_dead(pid))
				continue;
			snprintf(cg.path, sizeof(cg.path), "%s/%s", parent[i], de->d_name);
			killed = run_cgroup_kill(&cg);
			fsaio_err("removing %s, left by fsaio %d which died before its"
				   " teardown (%d process%s killed)", cg.path, pid, killed,
				   killed == 1 ? "" : "es");
			if (run_cgroup_destroy(&cg, 5))
				continue;	/* said by run_cgroup_destroy */
			reaped++;
		}
		closedir(d);
	}
	return reaped;
}

void run_cgroup_destroy_all(void)
{
	struct run_cgroup cg;

	for (int i = 0; i < LIVE_MAX; i++) {
		if (!live[i][0])
			continue;
		snprintf(cg.path, sizeof(cg.path), "%s", live[i]);
		run_cgroup_destroy(&cg, 5);
	}
}
