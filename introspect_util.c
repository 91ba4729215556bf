// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the introspect programs; see
 * introspect_util.h for what each function promises.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "introspect_util.h"

/*
 * Line-buffer stdout before main() runs: 6.12's ksft_print_header() does
 * it, 6.1's does not, and the 6.1 runner does not wrap programs in
 * stdbuf, so a program killed by the runner's timeout would lose its
 * buffered KTAP (and a fork() would duplicate it).
 */
static void __attribute__((constructor)) line_buffer_stdout(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

uint64_t intro_clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		ksft_exit_fail_msg("clock_gettime(%d): %s\n", (int)clk,
				   strerror(errno));
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

uint64_t intro_jiffy_ns(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts))
		ksft_exit_fail_msg("clock_getres(CLOCK_MONOTONIC_COARSE): %s\n",
				   strerror(errno));
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

bool intro_current_cpu_ok(int cpu)
{
	return sched_getcpu() == cpu;
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

/* Sorted copy of @v, or @v itself when already sorted; NULL on ENOMEM. */
static const double *sorted_view(const double *v, size_t n, bool sorted,
				 double **copy)
{
	*copy = NULL;
	if (sorted)
		return v;
	*copy = malloc(n * sizeof(*v));
	if (!*copy)
		ksft_exit_fail_msg("statistics: out of memory for %zu samples\n",
				   n);
	memcpy(*copy, v, n * sizeof(*v));
	intro_sort(*copy, n);
	return *copy;
}

double intro_quantile(const double *v, size_t n, double q, bool sorted)
{
	const double *s;
	double *copy, pos, frac, r;
	size_t lo;

	if (!n)
		return NAN;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	s = sorted_view(v, n, sorted, &copy);
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	frac = pos - (double)lo;
	r = s[lo];
	if (lo + 1 < n)
		r += frac * (s[lo + 1] - s[lo]);
	free(copy);
	return r;
}

double intro_trimmed_mean(const double *v, size_t n, double frac, bool sorted)
{
	const double *s;
	double *copy, sum = 0;
	size_t cut, i;

	if (!n)
		return NAN;
	if (frac < 0)
		frac = 0;
	if (frac >= 0.5)
		frac = 0.49;
	cut = (size_t)(frac * (double)n);
	s = sorted_view(v, n, sorted, &copy);
	for (i = cut; i < n - cut; i++)
		sum += s[i];
	free(copy);
	return sum / (double)(n - 2 * cut);
}

double intro_frac_at_least(const double *v, size_t n, double threshold)
{
	size_t i, k = 0;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		if (v[i] >= threshold)
			k++;
	return (double)k / (double)n;
}

void intro_print_log2_hist(const char *label, const double *v, size_t n,
			   const char *unit)
{
	size_t count[64] = { 0 };
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		b = v[i] < 2 ? 0 : (int)floor(log2(v[i]));
		if (b > 63)
			b = 63;
		count[b]++;
	}
	for (b = 0; b < 64; b++)
		if (count[b])
			ksft_print_msg("%s: [%.0f, %.0f) %s: %zu\n", label,
				       b ? ldexp(1, b) : 0, ldexp(1, b + 1),
				       unit, count[b]);
}

static void print_usage(const char *prog)
{
	printf("usage: %s [-s|--scale F] [-v|--verbose] [-h|--help]\n"
	       "  -s F  scale the time budget and sample counts by F (0.05..20)\n"
	       "  -v    print per-sample detail and histograms on pass too\n"
	       "The kselftest runner appends KSELFTEST_<PROG>_ARGS to argv.\n",
	       prog);
}

void intro_parse_opts(int argc, char **argv, struct intro_opts *opts)
{
	static const struct option longopts[] = {
		{ "scale", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	opts->scale = 1.0;
	opts->verbose = false;
	while ((c = getopt_long(argc, argv, "s:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			opts->scale = strtod(optarg, &end);
			if (errno || *end || !(opts->scale >= 0.05) ||
			    opts->scale > 20) {
				print_usage(argv[0]);
				ksft_exit_fail_msg("bad --scale '%s'\n", optarg);
			}
			break;
		case 'v':
			opts->verbose = true;
			break;
		case 'h':
			print_usage(argv[0]);
			exit(KSFT_PASS);
		default:
			print_usage(argv[0]);
			ksft_exit_fail_msg("bad arguments\n");
		}
	}
	if (optind < argc) {
		print_usage(argv[0]);
		ksft_exit_fail_msg("unexpected argument '%s'\n", argv[optind]);
	}
}

void intro_budget_start(struct intro_budget *b, double seconds)
{
	b->start_ns = intro_now_ns();
	b->limit_ns = (uint64_t)(seconds * (double)NSEC_PER_SEC);
}

uint64_t intro_budget_left_ns(const struct intro_budget *b)
{
	uint64_t used = intro_now_ns() - b->start_ns;

	return used >= b->limit_ns ? 0 : b->limit_ns - used;
}

double intro_budget_spent_s(const struct intro_budget *b)
{
	return (double)(intro_now_ns() - b->start_ns) / NSEC_PER_SEC;
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

/* Read the first line of @path into @buf; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

char intro_kconfig(const char *name)
{
	char path[128], line[256], want[96];
	struct utsname u;
	size_t wl;
	char r = 'n';
	FILE *f;

	if (uname(&u))
		return '?';
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "r");
	if (!f)
		return '?';
	wl = (size_t)snprintf(want, sizeof(want), "CONFIG_%s=", name);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, want, wl)) {
			r = line[wl] == 'm' ? 'm' : 'y';
			break;
		}
	}
	fclose(f);
	return r;
}

/*
 * PREEMPT_DYNAMIC without debugfs: the last "preempt=" of the command line
 * (kernel/sched/core.c: setup_preempt_mode()), else the build default
 * (the PREEMPT_NONE / PREEMPT_VOLUNTARY / PREEMPT choice of Kconfig).
 */
static const char *dynamic_preempt_model(const char * const *models,
					 size_t n)
{
	const char *found = NULL;
	static char cmd[4096];
	size_t i;
	char *p;

	if (!read_line("/proc/cmdline", cmd, sizeof(cmd))) {
		for (p = strstr(cmd, "preempt="); p;
		     p = strstr(p + 1, "preempt=")) {
			if (p != cmd && p[-1] != ' ')
				continue;
			for (i = 0; i < n; i++)
				if (!strncmp(p + 8, models[i], strlen(models[i])))
					found = models[i];
		}
	}
	if (found)
		return found;
	if (intro_kconfig("PREEMPT_NONE") == 'y')
		return "none";
	if (intro_kconfig("PREEMPT_VOLUNTARY") == 'y')
		return "voluntary";
	if (intro_kconfig("PREEMPT") == 'y')
		return "full";
	return "dynamic";
}

const char *intro_preempt_model(void)
{
	static const char * const models[] = {
		"none", "voluntary", "full", "lazy",
	};
	static char dyn[16];
	char line[128];
	struct utsname u;
	size_t i;
	char *p;

	if (!read_line("/sys/kernel/realtime", line, sizeof(line)) &&
	    line[0] == '1')
		return "rt";
	/* e.g. "none (voluntary) full lazy": the current one is in () */
	if (!read_line("/sys/kernel/debug/sched/preempt", line, sizeof(line))) {
		p = strchr(line, '(');
		for (i = 0; p && i < ARRAY_SIZE(models); i++) {
			snprintf(dyn, sizeof(dyn), "(%s)", models[i]);
			if (!strncmp(p, dyn, strlen(dyn)))
				return models[i];
		}
	}
	if (uname(&u))
		return "unknown";
	if (strstr(u.version, "PREEMPT_RT"))
		return "rt";
	if (strstr(u.version, "PREEMPT_DYNAMIC"))
		return dynamic_preempt_model(models, ARRAY_SIZE(models));
	if (strstr(u.version, "PREEMPT "))
		return "full";
	return "none";
}

const char *intro_hypervisor(void)
{
#if defined(__x86_64__) || defined(__i386__)
	static char vendor[13];
	unsigned int a, b, c, d;

	__cpuid_count(1, 0, a, b, c, d);
	if (!(c & (1U << 31)))
		return "none";
	__cpuid_count(0x40000000, 0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &c, 4);
	memcpy(vendor + 8, &d, 4);
	vendor[12] = '\0';
	for (a = 0; a < 12; a++)
		if (vendor[a] && !isprint((unsigned char)vendor[a]))
			vendor[a] = '_';
	return vendor[0] ? vendor : "unknown";
#else
	return "unknown";
#endif
}

/*
 * Cputime accounting: tick sampling (kernel/sched/cputime.c:
 * account_process_tick()) unless the CPUs are nohz_full with
 * CONFIG_VIRT_CPU_ACCOUNTING_GEN, where utime/stime are measured at
 * kernel entry/exit (vtime_*()).
 */
static const char *accounting_mode(char *nohz, size_t len)
{
	if (read_line("/sys/devices/system/cpu/nohz_full", nohz, len) ||
	    !nohz[0] || !strcmp(nohz, "(null)"))
		snprintf(nohz, len, "none");
	if (strcmp(nohz, "none"))
		return "vtime_gen_on_nohz_full";
	if (intro_kconfig("VIRT_CPU_ACCOUNTING_NATIVE") == 'y')
		return "vtime_native";
	return "tick";
}

void intro_print_env(void)
{
	uint64_t j = intro_jiffy_ns();
	int cpus[INTRO_MAX_CPUS], n, i;
	char list[256] = "", nohz[128];
	const char *acct;
	struct utsname u;
	size_t off = 0;

	n = intro_usable_cpus(cpus, INTRO_MAX_CPUS);
	for (i = 0; i < n && off < sizeof(list) - 8; i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d",
					i ? "," : "", cpus[i]);
	acct = accounting_mode(nohz, sizeof(nohz));
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	printf("# env: kernel=%s jiffy_us=%llu hz=%llu", u.release,
	       (unsigned long long)(j / NSEC_PER_USEC),
	       (unsigned long long)(NSEC_PER_SEC / j));
	printf(" cpus_usable=%d cpu_list=%s cpus_online=%ld", n, list,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf(" hypervisor=%s preempt=%s accounting=%s nohz_full=%s\n",
	       intro_hypervisor(), intro_preempt_model(), acct, nohz);
}

void intro_metric(const char *check, const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", check);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}
