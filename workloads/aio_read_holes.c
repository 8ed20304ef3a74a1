// SPDX-License-Identifier: GPL-2.0
/*
 * aio_read_holes: libaio buffered reads of a cold sparse file (2 MiB by
 * default) whose data extents start and end at odd offsets, with holes
 * between them and a hole running to EOF.  Reads straddle every data/hole
 * boundary, lie wholly in a hole, span a whole extent, and cross the tail
 * hole into EOF; COUNT (default 21) more reads are placed pseudo-randomly.
 * Data must match the pattern and holes must read back as zeros.
 *
 * Hole pages need no I/O (zero folios), data pages do: a retry path has to
 * cope with a request that is part cached-zero, part waiting on the disk.
 */
#include "lib/wl.h"

#define SLOT	(96u * 1024)

static const char help[] =
	"Boundary reads plus COUNT (21) random reads of a sparse file, verified.\n"
	"  -s FILESIZE  file size, >= 2 MiB (default 2m)\n";

static const struct wl_extent data[] = {
	{ 3 * 4096 + 100, 70000 },	/* file starts with a hole */
	{ 300001, 50001 },
	{ 1 << 20, 64 * 1024 },		/* block-aligned one too */
	{ 1900000, 100000 },		/* then a hole to EOF */
};
#define NDATA	(sizeof(data) / sizeof(data[0]))
#define NFIXED	(2 * NDATA + 3)

/* Request i: first the fixed boundary cases, then random ones. */
static void req(const struct wl_file *f, unsigned i, struct wl_rd *q)
{
	if (i < 2 * NDATA) {
		const struct wl_extent *e = &data[i / 2];
		uint64_t b = i % 2 ? e->off + e->len : e->off;

		q->off = b - 3000;	/* every boundary is > 3000 */
		q->len = 8000;
	} else if (i == 2 * NDATA) {
		q->off = 600000;	/* wholly in a hole */
		q->len = 8192;
	} else if (i == 2 * NDATA + 1) {
		q->off = (1 << 20) - 4096;	/* a whole extent and both sides */
		q->len = 64 * 1024 + 8192;
	} else if (i == 2 * NDATA + 2) {
		q->off = f->size - 2000;	/* tail hole into EOF: short read */
		q->len = 8000;
	} else {
		q->off = wl_rand(f->seed, i, f->size);
		q->len = 1 + wl_rand(~f->seed, i, 32 * 1024);
	}
}

/* Not a failure (some filesystems fill holes), but worth saying. */
static void note_holes(int fd)
{
	off_t first = lseek(fd, 0, SEEK_DATA);

	if (first != (off_t)(data[0].off & ~(uint64_t)(WL_PAGE - 1)))
		printf("# note: first data at %lld, expected a leading hole\n",
		       (long long)first);
}

/* The case: the fixed requests, then COUNT random ones; the cold fd. */
static int holes_case(const struct wl_opts *o, struct wl_reads *c)
{
	int fd;

	c->f.size = o->size_set ? o->size : 2u << 20;
	if (c->f.size < 2u << 20) {
		fprintf(stderr, "-s must be >= 2m\n");
		exit(EXIT_USAGE);
	}
	wl_reads_init(c, NFIXED + o->count, SLOT);
	for (unsigned i = 0; i < c->n; i++) {
		req(&c->f, i, &c->rd[i]);
		c->rd[i].buf = c->bufs + (size_t)i * SLOT;
	}
	fd = wl_reads_file(o, c);
	note_holes(fd);
	return fd;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_read_holes", .count = 21 };
	struct wl_reads c = { .f.seed = 0x401e5, .f.data = data, .f.ndata = NDATA };

	return wl_reads_main(argc, argv, &o, &c, help, holes_case, WL_LIBAIO);
}
