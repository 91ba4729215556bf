// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace_utime: not written yet; reports a skip so that the collection frame runs.
 */
#define _GNU_SOURCE
#include "introspect_util.h"

int main(int argc, char **argv)
{
	struct intro_opts opts;

	intro_parse_opts(argc, argv, &opts);
	ksft_print_header();
	intro_print_env();
	ksft_exit_skip("not implemented yet\n");
}
