// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the introspect programs; introspect_util.h says what
 * each one promises.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "introspect_util.h"

#define FIGURES_MAX	512
#define FORCED		"forced_fail=1"

static const char *force_fail;	/* --force-fail: a check name or "all" */
static char figures_check[128];
static char figures[FIGURES_MAX + sizeof(" " FORCED)];

uint64_t intro_clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		ksft_exit_fail_perror("clock_gettime");
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

uint64_t intro_jiffy_ns(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts))
		ksft_exit_fail_perror("clock_getres(CLOCK_MONOTONIC_COARSE)");
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int intro_usable_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int cpu, n = 0;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n;
}

int intro_pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void intro_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double intro_quantile(const double *v, size_t n, double q, bool sorted)
{
	double *copy = NULL, pos, r;
	const double *s = v;
	size_t lo;

	if (!n)
		return NAN;
	q = q < 0 ? 0 : q > 1 ? 1 : q;
	if (!sorted) {
		copy = malloc(n * sizeof(*v));
		if (!copy)
			ksft_exit_fail_perror("statistics");
		memcpy(copy, v, n * sizeof(*v));
		intro_sort(copy, n);
		s = copy;
	}
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	r = s[lo];
	if (lo + 1 < n)
		r += (pos - (double)lo) * (s[lo + 1] - s[lo]);
	free(copy);
	return r;
}

void intro_print_log2_hist(const char *check, const double *v, size_t n,
			   const char *unit)
{
	size_t count[64] = { 0 };
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		b = v[i] < 2 ? 0 : (int)floor(log2(v[i]));
		count[b > 63 ? 63 : b]++;
	}
	for (b = 0; b < 64; b++)
		if (count[b])
			ksft_print_msg("%s: bucket_lo_%s=%.0f bucket_hi_%s=%.0f count=%zu\n",
				       check, unit, b ? ldexp(1, b) : 0, unit,
				       ldexp(1, b + 1), count[b]);
}

static pid_t force_fail_pid;	/* the process that reports */
static bool force_fail_seen;	/* a result of that name was reported */
static bool results_reported;	/* any result: the program did not skip whole */

/* At exit of the reporting process: --force-fail named no check it has. */
static void force_fail_unknown(void)
{
	if (getpid() != force_fail_pid || force_fail_seen || !results_reported)
		return;
	fprintf(stderr, "--force-fail: no check '%s' (its --help lists them)\n", force_fail);
	_exit(KSFT_FAIL);
}

void intro_parse_opts(int argc, char **argv, const struct intro_prog *prog,
		      struct intro_opts *opts)
{
	static const struct option longopts[] = {
		{ "scale", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "force-fail", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	FILE *out = stderr;
	char *end;
	int c;

	opts->scale = 1.0;
	opts->verbose = false;
	while ((c = getopt_long(argc, argv, "s:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			opts->scale = strtod(optarg, &end);
			if (errno || *end || !(opts->scale > 0))
				goto bad;
			break;
		case 'v':
			opts->verbose = true;
			break;
		case 'F':
			force_fail = optarg;
			force_fail_pid = getpid();
			if (strcmp(optarg, "all"))
				atexit(force_fail_unknown);
			break;
		case 'h':
			out = stdout;
			goto usage;
		default:
			goto bad;
		}
	}
	if (optind < argc)
		goto bad;
	opts->requested_scale = opts->scale;
	opts->scale = fmax(prog->min_scale, fmin(prog->max_scale, opts->scale));
	/* SIG_IGN survives exec and would reap every child before wait4() */
	signal(SIGCHLD, SIG_DFL);
	return;
bad:
	fprintf(stderr, "%s: invalid arguments\n", argv[0]);
usage:
	fprintf(out, "usage: %s [-s F] [-v] [--force-fail CHECK] [-h]\n\n%s\n",
		argv[0], prog->usage);
	fprintf(out, "options:\n"
		"  -s, --scale F         time budget and sample counts times F (%.2g to %.2g;\n"
		"                        other positive values are clamped)\n"
		"  -v, --verbose         per-sample detail and histograms on pass too\n"
		"  --force-fail CHECK    report CHECK (one named above, or all) as failed,\n"
		"                        figures unchanged: tests how a failure reaches CI\n"
		"  -h, --help            this text\n"
		"The kselftest runner appends KSELFTEST_<PROG>_ARGS to the arguments.\n",
		prog->min_scale, prog->max_scale);
	exit(out == stdout ? KSFT_PASS : KSFT_FAIL);
}

pid_t intro_fork(void)
{
	pid_t parent = getpid();
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid)
		return pid;
	/* the parent may have died before prctl() ran */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(KSFT_FAIL);
	return 0;
}

void intro_kill_wait(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
}

ssize_t intro_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 1, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1 && (n > 0 || (n < 0 && errno == EINTR))) {
		n = read(fd, buf + got, len - 1 - got);
		got += n > 0 ? n : 0;
	}
	close(fd);
	if (n < 0)
		return -1;
	got -= got && buf[got - 1] == '\n';
	buf[got] = '\0';
	return got;
}

const char *intro_preempt_model(void)
{
	static const char * const models[] = { "none", "voluntary", "full", "lazy" };
	char buf[128], want[16];
	struct utsname u;
	size_t i;

	if (uname(&u))
		return "dynamic";
	if (strstr(u.version, "PREEMPT_RT") ||
	    (intro_read_file("/sys/kernel/realtime", buf, sizeof(buf)) > 0 && buf[0] == '1'))
		return "rt";
	if (!strstr(u.version, "PREEMPT_DYNAMIC"))
		return strstr(u.version, "PREEMPT ") ? "full" : "none";
	/* debugfs: "none (voluntary) full lazy" */
	if (intro_read_file("/sys/kernel/debug/sched/preempt", buf, sizeof(buf)) <= 0)
		return "dynamic";
	for (i = 0; i < ARRAY_SIZE(models); i++) {
		snprintf(want, sizeof(want), "(%s)", models[i]);
		if (strstr(buf, want))
			return models[i];
	}
	return "dynamic";
}

void intro_print_env(const struct intro_opts *opts)
{
	uint64_t j = intro_jiffy_ns();
	int cpus[INTRO_MAX_CPUS];
	char self[32];
	struct utsname u;
	ssize_t n;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	ksft_print_msg("env: kernel=%s jiffy_us=%llu hz=%llu usable_cpus=%d\n",
		       u.release, (unsigned long long)(j / NSEC_PER_USEC),
		       (unsigned long long)(NSEC_PER_SEC / j),
		       intro_usable_cpus(cpus, INTRO_MAX_CPUS));
	ksft_print_msg("env: preempt=%s scale=%.2f requested_scale=%.2f\n",
		       intro_preempt_model(), opts->scale, opts->requested_scale);
	/* /proc/self names the caller in the PID namespace /proc was mounted for */
	n = readlink("/proc/self", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	if (atoi(self) != getpid())
		ksft_exit_skip("/proc is not mounted for this PID namespace (self %s, pid %d)\n",
			       self, getpid());
}

static bool forced(const char *check)
{
	bool named = force_fail && !strcmp(force_fail, check);

	force_fail_seen |= named;
	results_reported = true;
	return named || (force_fail && !strcmp(force_fail, "all"));
}

void intro_figures(const char *check, const char *fmt, ...)
{
	char line[FIGURES_MAX], *word, *save, *end;
	va_list ap;
	double v;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* "key=nan", "key=inf" (either sign): not measured, left out */
	figures[0] = '\0';
	for (word = strtok_r(line, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
		end = strchr(word, '=');
		v = end && end[1] ? strtod(end + 1, &end) : 0;
		if (isfinite(v) || *end)
			sprintf(figures + strlen(figures), "%s%s",
				figures[0] ? " " : "", word);
	}
	if (forced(check))
		strcat(figures, figures[0] ? " " FORCED : FORCED);
	snprintf(figures_check, sizeof(figures_check), "%s", check);
	ksft_print_msg("%s: %s\n", check, figures);
}

const char *intro_report_prepare(const char *check, int *result,
				 const char *reason)
{
	bool mine = !strcmp(check, figures_check);
	char token[128];
	size_t i;

	if (reason && (*result == KSFT_SKIP || *result == KSFT_XFAIL)) {
		for (i = 0; *reason && i < sizeof(token) - 1; reason++)
			if (isalnum((unsigned char)*reason) || (i && token[i - 1] != '_'))
				token[i++] = isalnum((unsigned char)*reason) ? *reason : '_';
		i -= i && token[i - 1] == '_';
		token[i] = '\0';
		ksft_print_msg("%s: %s_reason=%s\n", check,
			       *result == KSFT_SKIP ? "skip" : "xfail", token);
	}
	figures_check[0] = '\0';
	if (!forced(check))
		return mine ? figures : NULL;
	*result = KSFT_FAIL;
	if (mine)
		return figures;
	ksft_print_msg("%s: %s\n", check, FORCED);
	return FORCED;
}
