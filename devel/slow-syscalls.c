// SPDX-License-Identifier: GPL-2.0
/*
 * slow-syscalls - run a command with every syscall made slower by a fixed
 * amount, as on a machine whose syscall entry and exit cost more (PTI
 * without PCID, IBRS, a paravirtualized guest).
 *
 *   slow-syscalls US COMMAND [ARG...]
 *
 * Installs seccomp filters that the kernel runs on every syscall of the
 * command and of everything it starts: each loads a syscall argument, so
 * the per-syscall constant-action cache (kernel/seccomp.c:
 * seccomp_is_const_allow()) cannot skip it, computes on it and allows the
 * call.
 * The number of instructions is calibrated on getppid() in a child first
 * (a filter holds at most BPF_MAXINSNS = 4096, a task at most
 * MAX_INSNS_PER_PATH = 32768 counted with 4 per filter); what was reached
 * goes to stderr as "slow-syscalls: getppid_us=BEFORE->AFTER ...".
 * Exit status: the command's (exec), 2 on a usage or seccomp error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FILTER_INSNS	4096	/* BPF_MAXINSNS */
#define PATH_INSNS	32768	/* MAX_INSNS_PER_PATH */
#define PROBE_CALLS	20000

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Median of 7 timings of PROBE_CALLS getppid(): us per call. */
static double getppid_us(void)
{
	double v[7], t, x;
	int i, j, k;

	for (k = 0; k < 7; k++) {
		t = now_us();
		for (i = 0; i < PROBE_CALLS; i++)
			syscall(SYS_getppid);
		v[k] = (now_us() - t) / PROBE_CALLS;
	}
	for (i = 1; i < 7; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return v[3];
}

/*
 * Instruction @i of a filter of @n: load args[0], then divide it and set
 * its top bits in turn (a divide takes tens of cycles and the code stays
 * small, so the filter costs time, not the caller's caches), then allow.
 */
static struct sock_filter insn(int i, int n)
{
	if (!i)
		return (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						    offsetof(struct seccomp_data,
							     args[0]));
	if (i == n - 1)
		return (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						    SECCOMP_RET_ALLOW);
	if (i & 1)
		return (struct sock_filter)BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 3);
	return (struct sock_filter)BPF_STMT(BPF_ALU | BPF_OR | BPF_K,
					    0xf0000000);
}

/* Install filters of @insns instructions in all; 0, or -1 (errno). */
static int slow_down(long insns)
{
	static struct sock_filter code[FILTER_INSNS];
	struct sock_fprog prog = { .filter = code };
	int i, n;

	if (getuid() && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	for (; insns > 0; insns -= n) {
		n = insns < FILTER_INSNS ? insns : FILTER_INSNS;
		n = n < 2 ? 2 : n;
		for (i = 0; i < n; i++)
			code[i] = insn(i, n);
		prog.len = n;
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			return -1;
	}
	return 0;
}

/* us a filter instruction adds to each syscall, probed in a child. */
static double us_per_insn(double base)
{
	int fd[2], status;
	double per = 0;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (!pid) {
		if (slow_down(FILTER_INSNS))
			_exit(2);
		per = (getppid_us() - base) / FILTER_INSNS;
		_exit(write(fd[1], &per, sizeof(per)) != sizeof(per));
	}
	close(fd[1]);
	if (pid < 0 || read(fd[0], &per, sizeof(per)) != sizeof(per))
		per = -1;
	close(fd[0]);
	waitpid(pid, &status, 0);
	return per;
}

int main(int argc, char **argv)
{
	double want, base, per;
	long insns, filters;

	want = argc < 3 ? 0 : strtod(argv[1], NULL);
	if (want <= 0) {
		fprintf(stderr, "usage: slow-syscalls US COMMAND [ARG...]\n");
		return 2;
	}
	base = getppid_us();
	per = us_per_insn(base);
	if (per <= 0) {
		fprintf(stderr, "slow-syscalls: seccomp filter: %m\n");
		return 2;
	}
	insns = (long)(want / per);
	filters = (insns + FILTER_INSNS - 1) / FILTER_INSNS;
	if (insns + 4 * filters > PATH_INSNS) {
		fprintf(stderr, "slow-syscalls: +%.2f us needs %ld instructions, over %d\n",
			want, insns, PATH_INSNS);
		return 2;
	}
	if (slow_down(insns)) {
		perror("slow-syscalls: seccomp");
		return 2;
	}
	fprintf(stderr, "slow-syscalls: getppid_us=%.3f->%.3f wanted_us=+%.2f insns=%ld\n",
		base, getppid_us(), want, insns);
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 2;
}
