// SPDX-License-Identifier: GPL-2.0
/*
 * convtrace: time the kernel functions and KVM events of a conversion
 * while a command (or a running process) works, then print histograms.
 *
 *   convtrace [-v] [-a] [-q] [-K] [-o CSV] [-f FUNC]... [-F] -- CMD [ARGS...]
 *   convtrace [-v] [-a] [-q] [-K] [-o CSV] [-f FUNC]... [-F] -p PID
 *
 * CMD is started stopped (it waits on a pipe) and runs once the probes
 * are attached; only its thread group is traced (not its children; -a
 * traces every process). convtrace exits with CMD's status (128 + signal
 * when it was killed), 1 when tracing could not start, 2 on bad usage.
 * SIGINT/SIGTERM: forwarded to CMD once, the histograms are printed when
 * it exits; with -p they stop tracing.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "trace_lib.h"

static struct env {
	pid_t pid;		/* -p */
	const char *csv;	/* -o */
	bool verbose;		/* -v */
	bool all;		/* -a */
	bool quiet;		/* -q: no histograms on stdout */
	const char *funcs[33];	/* -f, NULL-terminated */
	int nr_funcs;
	bool only_funcs;	/* -F: -f functions only */
	bool kprobes;		/* -K: kprobes even where fentry works */
} env;

static volatile sig_atomic_t exiting;

static const char usage[] =
"usage: convtrace [-v] [-a] [-q] [-K] [-o CSV] [-f FUNC]... [-F] -- CMD [ARGS...]\n"
"       convtrace [-v] [-a] [-q] [-K] [-o CSV] [-f FUNC]... [-F] -p PID\n"
"\n"
"Time the kernel functions and KVM events of private<->shared memory\n"
"conversions (fentry/fexit, else kprobes, plus raw tracepoints) while CMD\n"
"runs or until PID exits or SIGINT, then print per-function histograms.\n"
"\n"
"  -p, --pid PID     trace a running process (its thread group)\n"
"  -o, --csv FILE    also write the histograms as CSV\n"
"  -a, --all         trace every process, not only CMD/PID\n"
"  -f, --func FUNC   time FUNC too (repeatable)\n"
"  -F, --only-funcs  time only the -f functions (tracepoints still run)\n"
"  -K, --kprobes     use kprobes even where fentry/fexit work\n"
"  -q, --quiet       no histograms on stdout (with -o)\n"
"  -v, --verbose     libbpf's messages and how each probe attached\n"
"  -h, --help        this text\n"
"\n"
"Exit: CMD's status (128+N when killed by signal N), 0 with -p,\n"
"1 tracing could not start, 2 bad usage.\n";

static void __attribute__((noreturn)) bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "convtrace: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(convtrace -h for help)\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "csv", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'a' },
		{ "func", required_argument, NULL, 'f' },
		{ "only-funcs", no_argument, NULL, 'F' },
		{ "kprobes", no_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	char *end;
	long v;
	int c;

	opterr = 0;
	/* '+': stop at CMD, its options are its own */
	while ((c = getopt_long(argc, argv, "+p:o:af:FKqvh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v <= 0 ||
			    v > 0x7fffffff)
				bad_usage("-p wants a process id, not '%s'", optarg);
			env.pid = v;
			break;
		case 'o':
			env.csv = optarg;
			break;
		case 'a':
			env.all = true;
			break;
		case 'f':
			if (env.nr_funcs >= 32)
				bad_usage("too many -f (%s)", "at most 32");
			env.funcs[env.nr_funcs++] = optarg;
			break;
		case 'F':
			env.only_funcs = true;
			break;
		case 'K':
			env.kprobes = true;
			break;
		case 'q':
			env.quiet = true;
			break;
		case 'v':
			env.verbose = true;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case ':':
		case '?':
		default:
			if (optopt && strchr("pof", optopt)) {
				char o[3] = { '-', (char)optopt, 0 };

				bad_usage("option %s needs an argument", o);
			}
			bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (env.pid && optind < argc)
		bad_usage("give either -p PID or a command, not both (%s)",
			  argv[optind]);
	if (!env.pid && optind >= argc)
		bad_usage("%s", "no command to run and no -p PID");
	if (env.only_funcs && !env.nr_funcs)
		bad_usage("%s", "-F without any -f FUNC");
	if (env.quiet && !env.csv)
		bad_usage("%s", "-q without -o: nothing would be written");
}

static void on_signal(int sig)
{
	exiting = sig;
}

/* fork CMD, stopped on a pipe until go() */
static pid_t start_cmd(char **argv, int *go_fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		close(p[1]);
		/* EOF without a byte: the tracer gave up */
		if (read(p[0], &c, 1) != 1)
			_exit(126);
		close(p[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "convtrace: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

static int wait_cmd(pid_t pid)
{
	bool forwarded = false;
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("convtrace: waitpid");
			return 1;
		}
		if (exiting && !forwarded) {
			kill(pid, exiting);
			forwarded = true;
		}
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* until PID exits or a signal comes */
static void wait_pid(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (!exiting) {
		if (fd >= 0) {
			if (poll(&pfd, 1, -1) > 0)
				break;
		} else {
			if (kill(pid, 0) && errno == ESRCH)
				break;
			sleep(1);
		}
	}
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	struct conv_trace_opts opts = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct conv_trace *t = NULL;
	int go_fd = -1, ret = 1;
	FILE *csv = NULL;
	pid_t child = 0;

	parse_args(argc, argv);
	/* no SA_RESTART: waitpid() and poll() must see the signal */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (env.pid && kill(env.pid, 0) && errno == ESRCH) {
		fprintf(stderr, "convtrace: no process %d\n", env.pid);
		return 1;
	}
	if (env.csv) {
		csv = fopen(env.csv, "w");
		if (!csv) {
			fprintf(stderr, "convtrace: cannot write %s: %s\n",
				env.csv, strerror(errno));
			return 1;
		}
	}
	if (!env.pid) {
		child = start_cmd(argv + optind, &go_fd);
		if (child < 0) {
			perror("convtrace: fork");
			goto cleanup;
		}
	}

	opts.tgid = env.pid ? env.pid : child;
	opts.all = env.all;
	opts.verbose = env.verbose;
	opts.extra_funcs = env.funcs;
	opts.no_default_funcs = env.only_funcs;
	opts.force_kprobe = env.kprobes;
	/* the exploration tool: the wide list and the tracepoint rows */
	opts.wide = true;
	t = conv_trace_open(&opts);
	if (!t) {
		fprintf(stderr, "convtrace: cannot start tracing: %s\n",
			strerror(errno));
		if (child > 0) {
			close(go_fd);	/* the child exits without running CMD */
			go_fd = -1;
			waitpid(child, NULL, 0);
		}
		goto cleanup;
	}

	if (child > 0) {
		if (write(go_fd, "g", 1) != 1) {
			perror("convtrace: releasing the command");
			kill(child, SIGKILL);
		}
		close(go_fd);
		go_fd = -1;
		ret = wait_cmd(child);
	} else {
		wait_pid(env.pid);
		ret = 0;
	}

	if (!env.quiet)
		conv_trace_print(t, stdout);
	if (csv && conv_trace_write_csv(t, csv)) {
		fprintf(stderr, "convtrace: writing %s failed\n", env.csv);
		if (!ret)
			ret = 1;
	}
cleanup:
	if (go_fd >= 0)
		close(go_fd);
	conv_trace_close(t);
	if (csv)
		fclose(csv);
	return ret;
}
