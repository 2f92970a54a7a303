// SPDX-License-Identifier: GPL-2.0
/* convstress, its options (convstress.h) */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "convstress.h"
#include "inplace.h"
#include "inplace_check.h"
#include "stress_host.h"
#include "verdict.h"

/* ------------------------------------------------------------------ */
/* options                                                             */

static void usage(FILE *f)
{
	fprintf(f,
"usage: convstress [--duration=S] [--seed=N] [--start-op=N[,N...]]\n"
"                  [--vcpus=N] [--range-mb=N] [--no-loop] [-v]\n"
"Random private<->shared conversions (both modes, 4K..2M, PRESERVE and\n"
"ZERO) on N vCPUs (default 4) while host threads punch, convert, pin,\n"
"map, compact and try to read private memory. Every conversion is\n"
"verified. --duration: seconds (default 600); --seed: default from the\n"
"clock, printed first (the same seed replays every thread's choices);\n"
"--start-op: the ops each vCPU did before (one number, or one per vCPU,\n"
"as the end's '# positions:' line prints them): its guest continues the\n"
"seed's sequence from there, in a fresh VM;\n"
"--hang-timeout: seconds without an exit or a page fault fixed that make\n"
"a hang (default 30); --crawl-timeout: seconds of one KVM_RUN whose\n"
"faults KVM fixes, too slowly, that fail the storm (default 120; each\n"
"past --hang-timeout is noted, '# crawl:');\n"
"--inject=spin@OP|triple@OP|cr3@OP: vCPU 0's guest loops without an\n"
"exit, faults without an IDT, or loads a cr3 of its own and loops, at\n"
"op OP (the hang and SHUTDOWN reports' test);\n"
"--range-mb: each vCPU's range per slot (default 8); --no-loop: no\n"
"O_DIRECT pins through a loop device. Exit 0 ok, 1 a failure, 2 bad\n"
"option, 4 the kernel lacks the in-place variant.\n");
}

static int parse_u64(const char *name, const char *s, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "convstress: %s expects an integer in %llu..%llu, got '%s'\n",
			name, (unsigned long long)min, (unsigned long long)max, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* --inject=spin@OP, triple@OP or cr3@OP */
static int parse_inject(const char *arg)
{
	const char *at = strchr(arg, '@');
	size_t kind = at ? (size_t)(at - arg) : 0;

	if (kind == 4 && !strncmp(arg, "spin", 4)) {
		opt.inject = STRESS_INJECT_SPIN;
	} else if (kind == 6 && !strncmp(arg, "triple", 6)) {
		opt.inject = STRESS_INJECT_TRIPLE;
	} else if (kind == 3 && !strncmp(arg, "cr3", 3)) {
		opt.inject = STRESS_INJECT_CR3;
	} else {
		fprintf(stderr, "convstress: --inject expects spin@OP, triple@OP or cr3@OP, got '%s'\n",
			arg);
		return -1;
	}
	return parse_u64("--inject's OP", at + 1, 1, 1ULL << 48,
			 &opt.inject_op);
}

/* --start-op=N or N,N,...: one position per vCPU */
static int parse_start_ops(const char *arg)
{
	char buf[512], *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, "convstress: --start-op is too long\n");
		return -1;
	}
	strcpy(buf, arg);
	opt.nstart = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (opt.nstart == MAX_VCPUS) {
			fprintf(stderr, "convstress: --start-op takes at most %d positions\n",
				MAX_VCPUS);
			return -1;
		}
		if (parse_u64("--start-op", tok, 0, 1ULL << 48,
			      &opt.start_op[opt.nstart]))
			return -1;
		opt.nstart++;
	}
	if (!opt.nstart || arg[strlen(arg) - 1] == ',') {
		fprintf(stderr, "convstress: --start-op expects N or N,N,..., got '%s'\n",
			arg);
		return -1;
	}
	return 0;
}

int parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "start-op", required_argument, NULL, 'o' },
		{ "hang-timeout", required_argument, NULL, 'H' },
		{ "crawl-timeout", required_argument, NULL, 'C' },
		{ "inject", required_argument, NULL, 'I' },
		{ "vcpus", required_argument, NULL, 'c' },
		{ "range-mb", required_argument, NULL, 'r' },
		{ "no-loop", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	opt.seed = now_us() ^ ((uint64_t)getpid() << 32);
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_u64("--duration", optarg, 1, 86400, &v))
				return 2;
			opt.duration = v;
			break;
		case 's':
			if (parse_u64("--seed", optarg, 0, UINT64_MAX, &v))
				return 2;
			opt.seed = v;
			break;
		case 'o':
			if (parse_start_ops(optarg))
				return 2;
			break;
		case 'H':
			if (parse_u64("--hang-timeout", optarg, 1, 600, &v))
				return 2;
			opt.hang_ms = v * 1000;
			break;
		case 'C':
			if (parse_u64("--crawl-timeout", optarg, 1, 3600, &v))
				return 2;
			opt.crawl_ms = v * 1000;
			break;
		case 'I':
			if (parse_inject(optarg))
				return 2;
			break;
		case 'c':
			if (parse_u64("--vcpus", optarg, 1, MAX_VCPUS, &v))
				return 2;
			opt.vcpus = v;
			break;
		case 'r':
			if (parse_u64("--range-mb", optarg, 2, 64, &v) ||
			    (v % 2 && (fprintf(stderr, "convstress: --range-mb expects a multiple of 2\n"), 1)))
				return 2;
			opt.range_mb = v;
			break;
		case 'L':
			opt.loop = false;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "convstress: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (opt.crawl_ms < opt.hang_ms) {
		fprintf(stderr, "convstress: --crawl-timeout (%u s) is shorter than --hang-timeout (%u s)\n",
			opt.crawl_ms / 1000, opt.hang_ms / 1000);
		return 2;
	}
	if (opt.nstart > 1 && opt.nstart != opt.vcpus) {
		fprintf(stderr, "convstress: --start-op gives %u positions for %u vCPUs (one, or one per vCPU)\n",
			opt.nstart, opt.vcpus);
		return 2;
	}
	return 0;
}
