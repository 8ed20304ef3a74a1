// SPDX-License-Identifier: GPL-2.0
/* libwl: deterministic file content, its checks, exactly-once accounting. */
#include "wl.h"

/* splitmix64 finaliser: cheap, and every bit depends on offset and seed. */
static uint64_t wl_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint8_t pattern_byte(uint64_t seed, uint64_t off)
{
	uint64_t h = wl_mix((off >> 3) ^ (seed * 0x9e3779b97f4a7c15ULL));

	return (uint8_t)(h >> ((off & 7) * 8));
}

void pattern_fill(uint64_t seed, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = pattern_byte(seed, off + i);
}

static bool wl_in_data(const struct wl_file *f, uint64_t off)
{
	if (off >= f->size)
		return false;
	if (!f->data)
		return true;
	for (unsigned i = 0; i < f->ndata; i++)
		if (off >= f->data[i].off && off < f->data[i].off + f->data[i].len)
			return true;
	return false;
}

uint8_t wl_expected(const struct wl_file *f, uint64_t off)
{
	return wl_in_data(f, off) ? pattern_byte(f->seed, off) : 0;
}

int wl_verify(const struct wl_file *f, const void *buf, uint64_t off,
	      size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		uint8_t want = wl_expected(f, off + i);

		if (p[i] != want) {
			fprintf(stderr,
				"mismatch: %s offset %" PRIu64 " (request %" PRIu64
				"+%zu): got 0x%02x want 0x%02x\n", f->path,
				off + i, off, len, p[i], want);
			return -1;
		}
	}
	return 0;
}

size_t wl_expected_res(const struct wl_file *f, uint64_t off, size_t len)
{
	if (off >= f->size)
		return 0;
	return f->size - off < len ? f->size - off : len;
}

int wl_check_tail(const void *buf, size_t res, size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = res; i < len; i++)
		if (p[i] != 0xa5) {
			fprintf(stderr, "byte %zu past result %zu was written\n",
				i, res);
			return -1;
		}
	return 0;
}

int wl_verify_iov(const struct wl_file *f, const struct iovec *iov,
		  unsigned niov, uint64_t off, size_t res)
{
	for (unsigned k = 0; k < niov; k++) {
		size_t n = res < iov[k].iov_len ? res : iov[k].iov_len;

		if (wl_verify(f, iov[k].iov_base, off, n) ||
		    wl_check_tail(iov[k].iov_base, n, iov[k].iov_len))
			return -1;
		off += n;
		res -= n;
	}
	return 0;
}

/* wl_mix of a counter. */
uint64_t wl_rand(uint64_t seed, uint64_t i, uint64_t range)
{
	return range ? wl_mix(seed ^ (i * 0x2545f4914f6cdd1dULL)) % range : 0;
}

/*
 * seen[i] counts completions of request i; a completion for an unknown id
 * or a second one for the same id is an error the harness must also see.
 */
static int wl_mark_done(unsigned char *seen, unsigned n, uint64_t id)
{
	if (id >= n) {
		fprintf(stderr, "completion for unknown request %" PRIu64 "\n", id);
		return -1;
	}
	if (seen[id]++) {
		fprintf(stderr, "request %" PRIu64 " completed twice\n", id);
		return -1;
	}
	return 0;
}

void wl_account(struct wl_stats *st, struct wl_reap *r, uint64_t id, long res)
{
	st->completed++;
	if (res > 0)
		st->bytes += res;
	if (wl_mark_done(r->seen, r->nreq, id) || r->check(id, res, r->arg))
		st->errors++;
	else
		st->verified++;
}
