# SPDX-License-Identifier: GPL-2.0
# Event-log robustness (tests/fuzz/README.md):
#   make fuzz [FUZZ_SECONDS=600]
#       build the libFuzzer target tests/fuzz/fuzz_log.c and run it over
#       tests/fuzz/corpus/ for FUZZ_SECONDS; make check runs it for 60 s.
#   $(CORRUPT_TEST): every mutant of the seed logs replays with the
#       original verdicts or as an ERROR/usage error, never a different pass.
# Included by the top-level Makefile, which passes $(FUZZ_CHECKS) to
# tests/run-all.sh beside the unit tests.
FUZZ_SECONDS	?= 600

# The core again, in an object directory of its own, with the fuzzer's
# instrumentation: the normal build and its archive stay as they are.
# -fno-sanitize-recover: an undefined behaviour report is a crash the
# fuzzer keeps a reproducer of, not a line it scrolls past.
FUZZ_DIR	:= $(OUTPUT)/fuzz
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS	:= -O1 -g -fno-omit-frame-pointer -Wall -Wno-unused-parameter \
		   -Wno-missing-field-initializers -std=gnu11 -D_GNU_SOURCE -I. -Iharness
FUZZ_CORE_OBJS	:= $(patsubst harness/core/%.c,$(FUZZ_DIR)/core/%.o,$(CORE_SRCS))
FUZZ_CORE_LIB	:= $(FUZZ_DIR)/libfsaio-core.a
FUZZ_BIN	:= $(FUZZ_DIR)/fuzz_log
CORRUPT_TEST	:= $(OUTPUT)/tests/fuzz/corrupt
# What make check runs: the fuzzer for 60 s, the corruption rule.
FUZZ_CHECKS	:= tests/fuzz/run-fuzz.sh $(CORRUPT_TEST)

$(FUZZ_DIR)/core/%.o: harness/core/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_CORE_LIB): $(FUZZ_CORE_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_BIN): tests/fuzz/fuzz_log.c $(FUZZ_CORE_LIB)
	$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -MMD -MP -MF $@.d $< \
		$(FUZZ_CORE_LIB) -o $@

# The corruption test runs the real ./fsaio replay on each mutant; it links
# the core (normal flags) for the record layout and the text reader.
$(CORRUPT_TEST): tests/fuzz/corrupt.c $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -MF $@.d -Itests/unit $< $(CORE_LIB) -o $@

-include $(FUZZ_CORE_OBJS:.o=.d) $(FUZZ_BIN).d $(CORRUPT_TEST).d

.PHONY: fuzz
fuzz: $(FUZZ_BIN) ## fuzz the event-log readers and checker for FUZZ_SECONDS (default 600)
	tests/fuzz/run-fuzz.sh $(FUZZ_SECONDS)
