# SPDX-License-Identifier: GPL-2.0
CFLAGS += -Wall -O2 $(KHDR_INCLUDES)
LDLIBS += -lpthread -lm

TEST_GEN_PROGS := ptrace_utime taskstats_tgid wait_inactive smaps_perf
LOCAL_HDRS += introspect_util.h

include ../lib.mk

$(TEST_GEN_PROGS): introspect_util.c
