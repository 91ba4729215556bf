# SPDX-License-Identifier: GPL-2.0
# introspect: the cost and accuracy of watching a process (ptrace,
# taskstats, /proc/PID/smaps). Built by the kselftest lib.mk; see README.md.
CFLAGS += -Wall -O2 $(KHDR_INCLUDES)
LDLIBS += -lpthread -lm

TEST_GEN_PROGS := ptrace_utime taskstats_tgid wait_inactive smaps_perf
LOCAL_HDRS += introspect_util.h

KSFT_DIR ?= ..
include $(KSFT_DIR)/lib.mk

$(TEST_GEN_PROGS): introspect_util.c
