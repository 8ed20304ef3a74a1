// SPDX-License-Identifier: GPL-2.0
/* The feature table and what each feature changes in the checker. */
#include "core/features.h"

const struct feature_desc feature_table[] = {
#define X(id, bit, json, gives, costs) { FEAT_##id, json, gives, costs },
	FSAIO_FEATURES(X)
#undef X
};
const unsigned nr_features = sizeof(feature_table) / sizeof(feature_table[0]);

struct checker_config checker_config_for(uint32_t features)
{
	struct checker_config cfg = { 0 };
	bool fentry_retry = (features & FEAT_FEXIT_GET_PAGES) &&
			    (features & FEAT_FENTRY_ASYNC_BUF);

	cfg.see_sleep = features & FEAT_STACK;
	cfg.see_retry = (features & FEAT_FSAIO_TP) || fentry_retry;
	cfg.see_libaio_kernel_complete = features & (FEAT_FSAIO_TP |
						     FEAT_FENTRY_AIO_COMPLETE);
	cfg.libaio_submit_unseen = !(features & FEAT_SYSCALL_TP);
	cfg.see_fsync = (features & FEAT_FENTRY_FSYNC) && (features & FEAT_FSAIO_TP);
	cfg.libaio_async_expected = (features & FEAT_FSAIO_TP) &&
				    (features & FEAT_LIBAIO_ASYNC);
	cfg.libaio_async_off = (features & FEAT_FSAIO_TP) && !(features & FEAT_LIBAIO_ASYNC);
	cfg.libaio_opt_in = cfg.libaio_async_expected && (features & FEAT_LIBAIO_OPT_IN);
	cfg.skip_retry_reason = (features & FEAT_FENTRY) ?
		"fexit filemap_get_pages/fentry io_async_buf_func not attachable on this kernel" :
		"per-request retry/wake/resume need fentry (not loadable here) or the patched kernel's fsaio tracepoints";
	return cfg;
}
