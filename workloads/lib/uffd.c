// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers that stall: a userfaultfd region whose faults only the holder of
 * its descriptor serves, and passing that descriptor (and a message) to
 * another process over a unix socket.
 */
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>

#include "wl.h"

int wl_uffd_region(size_t len, char **buf)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	int uffd, err;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		return -errno;
	if (ioctl(uffd, UFFDIO_API, &api))
		goto fail;
	*buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*buf == MAP_FAILED)
		goto fail;
	reg = (struct uffdio_register){
		.range = { (uintptr_t)*buf, len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		goto fail;
	return uffd;
fail:
	err = errno;
	close(uffd);
	return -err;
}

unsigned wl_uffd_waiters(int uffd)
{
	char path[64], line[64];
	unsigned long total = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", uffd);
	f = fopen(path, "r");
	if (!f)
		wl_die(path, errno);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "total: %lu", &total) == 1;
	fclose(f);
	if (!found)
		wl_die("no \"total:\" in a userfaultfd's fdinfo (a kernel without it?)", EINVAL);
	return total;
}

int wl_uffd_reads(const struct wl_file *f, unsigned n, size_t len,
		  struct wl_reads *c, io_context_t *ctx, struct iocb ***ptrs)
{
	struct iocb *cbs;
	int uffd, file;
	char *buf;

	uffd = wl_uffd_region((size_t)n * len, &buf);
	if (uffd < 0)
		return uffd;
	c->f = *f;
	wl_strided_reads(c, n, len, len);
	for (unsigned i = 0; i < n; i++)
		c->rd[i].buf = buf + (size_t)i * len;
	file = wl_open_cold(f, O_RDONLY);
	cbs = wl_aio_prep_reads(c, file);
	*ptrs = calloc(n, sizeof(**ptrs));
	*ctx = 0;
	if (!*ptrs || io_setup(n, ctx)) {
		close(uffd);
		return -ENOMEM;	/* not the userfaultfd's fault: callers fail */
	}
	for (unsigned i = 0; i < n; i++)
		(*ptrs)[i] = &cbs[i];
	return uffd;
}

int wl_send_fd(int sock, const void *msg, size_t len, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)msg, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, 0) == (ssize_t)len ? 0 : -1;
}

int wl_recv_fd(int sock, void *msg, size_t len, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { msg, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;

	if (recvmsg(sock, &m, 0) != (ssize_t)len)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (fd && c && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

pid_t wl_fork_socket(int *sock)
{
	int sv[2];
	pid_t child;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		wl_die("socketpair", errno);
	fflush(stdout);
	child = fork();
	if (child < 0)
		wl_die("fork", errno);
	close(sv[child ? 1 : 0]);
	*sock = sv[child ? 0 : 1];
	return child;
}

pid_t wl_uffd_child(wl_uffd_child_fn fn, const struct wl_file *f, unsigned n,
		    void *msg, size_t len, int *uffd, int *sock)
{
	int sv, err;
	pid_t child = wl_fork_socket(&sv);

	if (!child) {
		fn(f, n, sv);
		_exit(1);
	}
	*uffd = -1;
	if (wl_recv_fd(sv, msg, len, uffd)) {
		/* it died before it could say: a failure, not a missing feature */
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		wl_die("the child failed before it reported", EIO);
	}
	if (*(int *)msg || *uffd < 0) {
		err = *(int *)msg ? *(int *)msg : EIO;
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		wl_skip("userfaultfd unavailable", err);
	}
	*sock = sv;
	return child;
}
