// SPDX-License-Identifier: GPL-2.0
/*
 * convbench's option parsing: defaults, every option, and bad input that
 * must be refused with exit status 2 and a message naming the option.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "tap.h"

/* parse a NULL-terminated argument list; err captures the message */
static int parse(struct env *env, char *err, size_t errlen, ...)
{
	char *argv[32] = { "convbench" };
	int argc = 1, r;
	FILE *ef = fmemopen(err, errlen, "w");
	FILE *of = fopen("/dev/null", "w");
	va_list ap;
	char *a;

	va_start(ap, errlen);
	while ((a = va_arg(ap, char *)) && argc < 31)
		argv[argc++] = a;
	va_end(ap);
	memset(err, 0, errlen);
	r = parse_options(argc, argv, env, of, ef);
	fclose(ef);
	fclose(of);
	return r;
}

/* arg (with another option, or NULL) must be refused naming opt_in_msg */
static void refused_with(const char *arg, const char *other,
			 const char *opt_in_msg)
{
	char err[512];
	struct env env;
	int r = parse(&env, err, sizeof(err), (char *)arg, (char *)other,
		      NULL);

	tap_result(r == 2 && strstr(err, opt_in_msg),
		   "%s%s%s is refused with status 2 naming %s (%d: %.60s)",
		   arg, other ? " " : "", other ? other : "", opt_in_msg, r,
		   err);
}

static void refused(const char *arg, const char *opt_in_msg)
{
	refused_with(arg, NULL, opt_in_msg);
}

/* defaults, every option, --duration, --help */
static void test_taken(void)
{
	char err[512];
	struct env env;
	int r;

	r = parse(&env, err, sizeof(err), NULL);
	tap_result(!r && env.modes[MODE_DESTRUCTIVE] && !env.modes[MODE_INPLACE] &&
		   env.nsizes == 1 && env.sizes[0] == 4096 &&
		   env.iterations == 1000 && env.vcpus == 1 &&
		   env.dir_mask == DIRS_ROUNDTRIP && env.preserve &&
		   env.trigger == TRIGGER_EXPLICIT && env.format == FORMAT_TEXT,
		   "defaults: destructive, 4K, 1000 iterations, 1 vCPU, roundtrip, preserve, explicit, text");

	r = parse(&env, err, sizeof(err), "--mode=destructive,inplace",
		  "--size=4K,64k,2M", "--iterations=7", "--vcpus=3",
		  "--direction=to-private", "--trigger=implicit",
		  "--no-preserve", "--out=/tmp/x", "--format=json",
		  "--seed=42", "--warmup=0", "-v", NULL);
	tap_result(!r && env.modes[MODE_DESTRUCTIVE] && env.modes[MODE_INPLACE] &&
		   env.nsizes == 3 && env.sizes[0] == 4096 &&
		   env.sizes[1] == 65536 && env.sizes[2] == 2097152 &&
		   env.iterations == 7 && env.vcpus == 3 &&
		   env.dir_mask == DIRS_TO_PRIVATE && !env.preserve &&
		   env.trigger == TRIGGER_IMPLICIT &&
		   !strcmp(env.out_dir, "/tmp/x") && env.format == FORMAT_JSON &&
		   env.seed == 42 && env.warmup == 0 && env.verbose,
		   "every option is taken");

	r = parse(&env, err, sizeof(err), "--duration=2.5", NULL);
	tap_result(!r && env.duration_s == 2.5 && env.iterations == 0,
		   "--duration replaces the iteration count");
	r = parse(&env, err, sizeof(err), "--help", NULL);
	tap_result(r == 1, "--help is answered (status 1 from the parser: exit 0)");
}

/* sizes as the options spell them */
static void test_sizes(void)
{
	char buf[32];

	tap_result(parse_size("4K") == 4096 && parse_size("2M") == 2 << 20 &&
		   parse_size("8192") == 8192 && parse_size("128M") == 128 << 20,
		   "sizes: 4K, 2M, 8192, 128M");
	tap_result(!parse_size("3K") && !parse_size("0") && !parse_size("") &&
		   !parse_size("4Q") && !parse_size("-4K") && !parse_size("1T") &&
		   !parse_size("512M"),
		   "bad sizes: 3K, 0, empty, 4Q, -4K, 1T, 512M (over 256M)");
	tap_result(!strcmp(size_str(4096, buf, sizeof(buf)), "4K") &&
		   !strcmp(size_str(2 << 20, buf, sizeof(buf)), "2M") &&
		   !strcmp(size_str(12288, buf, sizeof(buf)), "12K"),
		   "size_str: 4K, 2M, 12K");
}

/* bad values name their option */
static void test_refused(void)
{
	refused("--mode=fast", "--mode");
	refused("--mode=", "--mode");
	refused("--mode=destructive,", "--mode");
	refused("--size=3K", "--size");
	refused("--size=4K,,", "--size");
	refused("--iterations=0", "--iterations");
	refused("--iterations=ten", "--iterations");
	refused("--iterations=5x", "--iterations");
	refused("--duration=-1", "--duration");
	refused("--duration=nan", "--duration");
	refused("--vcpus=0", "--vcpus");
	refused("--vcpus=33", "--vcpus");
	refused("--direction=up", "--direction");
	refused("--trigger=maybe", "--trigger");
	refused("--format=xml", "--format");
	refused("--seed=-3", "--seed");
	refused("--stall-timeout=0", "--stall-timeout");
	refused("--out=", "--out");
	refused("--bogus", "--bogus");
	refused("--size", "--size");
	refused("stray", "stray");
}

/* --debug, --max-exits, --inject */
static void test_inject(void)
{
	char err[512];
	struct env env;
	int r;

	r = parse(&env, err, sizeof(err), "--debug", "--max-exits=5",
		  "--inject=skip@7", NULL);
	tap_result(!r && env.debug && env.max_exits == 5 &&
		   env.inject.kind == INJECT_SKIP && env.inject.k == 7,
		   "--debug, --max-exits, --inject=skip@K are taken");
	r = parse(&env, err, sizeof(err), "--mode=inplace", "--size=64K",
		  "--inject=corrupt@6:65528", NULL);
	tap_result(!r && env.inject.kind == INJECT_CORRUPT &&
		   env.inject.k == 6 && env.inject.off == 65528,
		   "--inject=corrupt@K:OFF is taken (the last word of 64K)");
	r = parse(&env, err, sizeof(err), "--no-preserve", "--inject=hang@0",
		  "--inject=corrupt@0:0", NULL);
	tap_result(!r && env.inject.kind == INJECT_CORRUPT,
		   "corrupt with destructive --no-preserve is taken; the last --inject wins");
	refused("--max-exits=0", "--max-exits");
	refused("--inject=boom@1", "--inject");
	refused("--inject=fail", "--inject");
	refused("--inject=fail@x", "--inject");
	refused("--inject=fail@3:8", "--inject");
	refused_with("--inject=corrupt@6", "--mode=inplace", "--inject");
	refused_with("--inject=corrupt@7:8", "--mode=inplace", "--inject");
	refused_with("--inject=corrupt@6:4", "--mode=inplace", "--inject");
	refused_with("--inject=corrupt@6:4096", "--mode=inplace", "--inject");
	refused("--inject=corrupt@6:8", "--inject=corrupt needs --no-preserve");
	refused_with("--inject=corrupt@6:8", "--mode=gmem",
		     "--inject=corrupt needs --no-preserve");
}

/* gmem is a mode like the others; --iterations or --duration */
static void test_modes(void)
{
	char err[512];
	struct env env;
	int r;

	r = parse(&env, err, sizeof(err), "--mode=gmem,destructive", NULL);
	tap_result(!r && env.modes[MODE_GMEM] && env.modes[MODE_DESTRUCTIVE] &&
		   !env.modes[MODE_INPLACE],
		   "--mode=gmem,destructive: guest_memfd's mode is a mode like the others");

	r = parse(&env, err, sizeof(err), "--iterations=5", "--duration=1", NULL);
	tap_result(r == 2 && strstr(err, "exclude"),
		   "--iterations with --duration is refused");
}

/* rounds, order, tracing, counting, merging, clock marks */
static void test_rounds(void)
{
	char err[512];
	struct env env;
	int r;

	r = parse(&env, err, sizeof(err), NULL);
	tap_result(!r && env.rounds == 5 && env.first_round == 0 &&
		   env.order_seed < (1ULL << 53) && env.trace == TRACE_OFF &&
		   !env.counts && !env.merge && !env.clock_mark,
		   "defaults: 5 rounds from 0, a random order seed below 2^53, no trace, no counts");
	r = parse(&env, err, sizeof(err), "--rounds=3", "--first-round=7",
		  "--order-seed=42", "--trace", NULL);
	tap_result(!r && env.rounds == 3 && env.first_round == 7 &&
		   env.order_seed == 42 && env.trace == TRACE_DEFAULT,
		   "--rounds, --first-round, --order-seed, --trace are taken");
	r = parse(&env, err, sizeof(err), "--trace=all", NULL);
	tap_result(!r && env.trace == TRACE_ALL, "--trace=all is taken");
	r = parse(&env, err, sizeof(err), "--trace=empty", NULL);
	tap_result(!r && env.trace == TRACE_EMPTY, "--trace=empty is taken");
	r = parse(&env, err, sizeof(err), "--counts", "--merge=/tmp/b",
		  "--out=/tmp/m", "--clock-mark=start-1", NULL);
	tap_result(!r && env.counts && !strcmp(env.merge, "/tmp/b") &&
		   !strcmp(env.clock_mark, "start-1"),
		   "--counts, --merge with --out, --clock-mark are taken");
	r = parse(&env, err, sizeof(err), "--merge=/tmp/b", "--gmem-run=/tmp/g",
		  "--out=/tmp/m", NULL);
	tap_result(!r && !strcmp(env.gmem_run, "/tmp/g"),
		   "--gmem-run with --merge is taken");
	refused("--gmem-run=/tmp/g", "--gmem-run only goes with --merge");
	refused("--rounds=0", "--rounds");
	refused("--rounds=65", "--rounds");
	refused("--first-round=x", "--first-round");
	refused("--order-seed=9007199254740992", "--order-seed");
	refused("--trace=most", "--trace");
	refused("--trace=none", "default, all or empty");
	refused("--merge=/tmp/b", "--merge needs --out");
	refused("--clock-mark=A B", "--clock-mark");
	refused_with("--counts", "--trace", "exclude");
	refused_with("--counts", "--vcpus=2", "--counts");
}

/* --design: make bench's boots */
static void test_design(void)
{
	char err[512];
	struct env env;
	int r;

	r = parse(&env, err, sizeof(err),
		  "--design=rounds=10,kernels=v5+gmem,traced=1,blocks=2",
		  "--mode=destructive,inplace", "--size=4K,2M", "--rounds=1",
		  "--first-round=9", "--iterations=300", NULL);
	tap_result(!r && env.design && env.design_rounds == 10 &&
		   env.design_kernel[0] && env.design_kernel[1] &&
		   env.design_traced && env.design_blocks == 2,
		   "--design=rounds=10,kernels=v5+gmem,traced=1,blocks=2 is taken (%.80s)",
		   err);
	r = parse(&env, err, sizeof(err),
		  "--design=kernels=gmem,blocks=4,traced=0,rounds=1",
		  "--mode=gmem", "--rounds=1", NULL);
	tap_result(!r && !env.design_kernel[0] && env.design_kernel[1] &&
		   env.design_blocks == 4 && !env.design_traced,
		   "--design's keys in any order, gmem alone");
	refused("--design=rounds=10,kernels=v5,traced=1,blocks=3", "--design");
	refused("--design=rounds=10,kernels=v5,traced=1", "--design");
	refused("--design=rounds=0,kernels=v5,traced=1,blocks=2", "--design");
	refused("--design=rounds=10,kernels=tdx,traced=1,blocks=2", "--design");
	refused("--design=rounds=10,kernels=v5,traced=yes,blocks=2", "--design");
	refused("--design=rounds=10,rounds=9,kernels=v5,traced=1,blocks=2", "--design");
	refused("--design-boots", "--design-boots");
	/* a boot of the design: one round, inside it, both v5 modes */
	refused_with("--design=rounds=4,kernels=v5,traced=1,blocks=2",
		     "--first-round=4", "--first-round");
	refused_with("--design=rounds=4,kernels=v5,traced=1,blocks=2",
		     "--mode=inplace", "--mode=destructive,inplace");
	refused_with("--design=rounds=4,kernels=v5,traced=1,blocks=2",
		     "--iterations=1", "--iterations");
	r = parse(&env, err, sizeof(err),
		  "--design=rounds=4,kernels=v5,traced=0,blocks=2",
		  "--mode=destructive,inplace", "--trace", NULL);
	tap_result(r == 2 && strstr(err, "traced=0"),
		   "--trace in a design without a traced phase is refused (%.60s)",
		   err);
}

/* --iterations-at: per size, checked against --size and --design */
static void test_iter_at(void)
{
	char err[512];
	struct env env;
	int r;

	r = parse(&env, err, sizeof(err), "--size=4K,64K,2M",
		  "--iterations=300", "--iterations-at=4K:600,64K:601", NULL);
	tap_result(!r && env_iterations(&env, 4096) == 600 &&
		   env_iterations(&env, 65536) == 601 &&
		   env_iterations(&env, 2097152) == 300,
		   "--iterations-at: 4K 600, 64K 601, the rest --iterations (%u %u %u)",
		   env_iterations(&env, 4096), env_iterations(&env, 65536),
		   env_iterations(&env, 2097152));
	refused_with("--iterations-at=4K600", "--size=4K", "--iterations-at");
	refused_with("--iterations-at=4K:0", "--size=4K", "--iterations-at");
	refused_with("--iterations-at=4K:-3", "--size=4K", "--iterations-at");
	refused_with("--iterations-at=5K:10", "--size=4K", "--iterations-at");
	refused_with("--iterations-at=4K:10,4K:20", "--size=4K",
		     "--iterations-at");
	refused_with("--iterations-at=64K:10", "--size=4K",
		     "--iterations-at names a size that --size does not list");
	refused_with("--iterations-at=4K:10", "--duration=5",
		     "exclude each other");
	r = parse(&env, err, sizeof(err), "--size=4K,2M", "--iterations=300",
		  "--iterations-at=4K:1", "--mode=destructive,inplace",
		  "--design=rounds=4,kernels=v5,traced=0,blocks=2", NULL);
	tap_result(r == 2 && strstr(err, "--iterations-at over 2 blocks"),
		   "--design: a size with fewer iterations than blocks is refused (%d: %.60s)",
		   r, err);
}

/* --workload=churn: its defaults, its options, what it refuses */
static void test_churn(void)
{
	char err[512];
	struct env env;
	int r;

	r = parse(&env, err, sizeof(err), "--workload=churn", NULL);
	tap_result(!r && env.churn && env.churn_p.range == 64 << 20 &&
		   env.churn_p.ops == 4000 && env.churn_p.interval == 250 &&
		   env.churn_p.nclasses == 4 && env.churn_p.size[3] == 2 << 20 &&
		   env.churn_p.weight[0] == 35,
		   "churn defaults: 64M, 4000 operations, a mark every 250, 4K:35,16K:25,64K:30,2M:10");
	r = parse(&env, err, sizeof(err), "--workload=churn",
		  "--churn-range=16M", "--churn-ops=77", "--churn-interval=9",
		  "--churn-mix=8K:3,2M:1", "--mode=inplace", NULL);
	tap_result(!r && env.churn_p.range == 16 << 20 && env.churn_p.ops == 77 &&
		   env.churn_p.interval == 9 && env.churn_p.nclasses == 2 &&
		   env.churn_p.size[0] == 8192 && env.churn_p.weight[0] == 3 &&
		   env.churn_p.size[1] == 2 << 20 && env.churn_p.weight[1] == 1,
		   "every churn option is taken");
	refused("--workload=storm", "--workload");
	refused("--churn-range=3M", "--churn-range");
	refused("--churn-range=2G", "--churn-range");
	refused("--churn-ops=0", "--churn-ops");
	refused("--churn-interval=x", "--churn-interval");
	refused("--churn-mix=4K", "--churn-mix");
	refused("--churn-mix=4K:0", "--churn-mix");
	refused("--churn-mix=6K:1", "--churn-mix");
	refused("--churn-mix=2G:1", "--churn-mix");
	refused_with("--workload=churn", "--churn-mix=128M:1", "--churn-mix");
	refused("--churn-mix=4K:1,4K:2", "--churn-mix");
	refused("--churn-mix=4K:1,,8K:1", "--churn-mix");
	refused("--churn-mix=4K:1,8K:1,12K:1,16K:1,20K:1,24K:1,28K:1,32K:1,36K:1", "--churn-mix");
	refused("--churn-ops=5", "--workload=churn, split, accept or io");
	refused_with("--workload=churn", "--size=4K", "--size");
	refused_with("--workload=churn", "--iterations=5", "--iterations");
	refused_with("--workload=churn", "--trigger=implicit", "--trigger");
	refused_with("--workload=churn", "--no-preserve", "--no-preserve");
	refused_with("--workload=churn", "--trace", "--trace");
	refused_with("--workload=churn", "--direction=to-shared", "--direction");
	r = parse(&env, err, sizeof(err), "--workload=split", NULL);
	tap_result(!r && env.churn && env.churn_p.events &&
		   env.churn_p.range == 2 << 20 && env.churn_p.ops == 400,
		   "--workload=split: events on a 2M range, 200 of them (400 conversions)");
	r = parse(&env, err, sizeof(err), "--churn-ops=10", "--churn-range=4M",
		  "--workload=split", NULL);
	tap_result(!r && env.churn_p.events && env.churn_p.range == 4 << 20 &&
		   env.churn_p.ops == 10,
		   "--workload=split keeps --churn-range and --churn-ops given before it");
	refused_with("--workload=split", "--size=4K", "--workload=split");
	r = parse(&env, err, sizeof(err), "--workload=churn", "--mode=inplace",
		  "--churn-merge", NULL);
	tap_result(!r && env.churn_p.merge, "--churn-merge goes with churn in place");
	r = parse(&env, err, sizeof(err), "--workload=split", "--mode=inplace",
		  "--churn-merge", NULL);
	tap_result(!r && env.churn_p.merge && env.churn_p.events,
		   "--churn-merge goes with split in place");
	refused_with("--workload=churn", "--churn-merge", "--churn-merge");
	r = parse(&env, err, sizeof(err), "--workload=churn", "--mode=destructive",
		  "--churn-merge", NULL);
	tap_result(r == 2 && strstr(err, "--churn-merge"),
		   "--churn-merge with --mode=destructive is refused (%d: %.60s)", r, err);
	r = parse(&env, err, sizeof(err), "--workload=io", "--mode=inplace",
		  "--churn-merge", NULL);
	tap_result(r == 2 && strstr(err, "--churn-merge"),
		   "--churn-merge with --workload=io is refused (%d: %.60s)", r, err);
	refused("--churn-merge", "--workload=churn, split, accept or io");
	r = parse(&env, err, sizeof(err), "--workload=churn",
		  "--churn-range=2M", "--churn-mix=4K:1,2M:1", NULL);
	tap_result(!r, "a 2M range takes a 2M class");
	r = parse(&env, err, sizeof(err), "--workload=churn",
		  "--churn-range=2M", "--churn-mix=4K:1,4M:1", NULL);
	tap_result(r == 2, "a class larger than the range is refused");
	r = parse(&env, err, sizeof(err), "--workload=accept", NULL);
	tap_result(!r && env.churn_p.accept && env.churn_p.range == 256 << 20 &&
		   env.churn_p.nclasses == 3 && env.churn_p.size[0] == 4096 &&
		   env.churn_p.size[2] == 4 << 20,
		   "--workload=accept: 256M in chunks of 4K, 2M and 4M");
	r = parse(&env, err, sizeof(err), "--workload=accept", "--no-preserve",
		  "--churn-range=8M", "--churn-mix=64K:1", NULL);
	tap_result(!r && env.churn_p.range == 8 << 20 && env.churn_p.nclasses == 1 &&
		   env.churn_p.size[0] == 65536, "--workload=accept takes a range and chunks");
	refused_with("--workload=accept", "--churn-ops=9", "--churn-ops");
	refused_with("--workload=accept", "--churn-interval=250", "--churn-interval");
	r = parse(&env, err, sizeof(err), "--workload=accept",
		  "--churn-range=6M", "--churn-mix=4M:1", NULL);
	tap_result(r == 2 && strstr(err, "divide"), "an accept chunk must divide the range");
	r = parse(&env, err, sizeof(err), "--workload=io", NULL);
	tap_result(!r && env.churn_p.io && env.churn_p.nclasses == 6 &&
		   env.churn_p.size[0] == 4096 && env.churn_p.size[5] == 2 << 20 &&
		   env.churn_p.ops == 100 && env.churn_p.interval == 25 &&
		   env.churn_p.range == 4 << 20 &&
		   env.churn_p.io_bad_guest == CHURN_IO_NO_BAD &&
		   env.churn_p.io_bad_host == CHURN_IO_NO_BAD,
		   "--workload=io: 4K to 2M, 100 requests by each strategy in blocks of 25, a 4M range, nothing planted");
	r = parse(&env, err, sizeof(err), "--workload=io", "--churn-mix=64K:1",
		  "--churn-ops=7", "--inject=io-host@3", NULL);
	tap_result(!r && env.churn_p.range == 4 << 20 && env.churn_p.ops == 7 &&
		   env.churn_p.io_bad_host == 3 &&
		   env.churn_p.io_bad_guest == CHURN_IO_NO_BAD,
		   "--workload=io takes sizes, requests and io-host@K");
	r = parse(&env, err, sizeof(err), "--workload=io", "--inject=io-guest@9", NULL);
	tap_result(!r && env.churn_p.io_bad_guest == 9, "--workload=io takes io-guest@K");
	refused_with("--workload=io", "--churn-range=2M", "twice the largest");
	refused_with("--workload=io", "--inject=fail@1", "io-guest@K");
	refused_with("--workload=churn", "--inject=io-host@1", "--inject");
	refused_with("--workload=conversion", "--inject=io-guest@1", "--workload=io");
	refused_with("--workload=io", "--inject=io-host@x", "--inject");
	refused_with("--workload=io", "--no-preserve", "--no-preserve");
	r = parse(&env, err, sizeof(err), "--workload=io", "--counts", NULL);
	tap_result(!r && env.counts && env.churn_p.io,
		   "--workload=io takes --counts (its blocks' kernel work)");
	refused_with("--workload=io", "--trace", "--trace");
	refused_with("--workload=churn", "--counts", "--counts");
	r = parse(&env, err, sizeof(err), "--workload=io", "--counts",
		  "--vcpus=2", NULL);
	tap_result(r == 2 && strstr(err, "--counts"),
		   "--workload=io --counts --vcpus=2 is refused naming --counts (%d: %.60s)",
		   r, err);
	r = parse(&env, err, sizeof(err), "--busy-vcpus=3", NULL);
	tap_result(!r && env.busy_vcpus == 3 && env.vcpus == 1,
		   "--busy-vcpus=3: one vCPU converting, three only running");
	refused_with("--busy-vcpus=32", NULL, "--busy-vcpus");
	refused_with("--workload=churn", "--busy-vcpus=1", "--busy-vcpus");
	refused_with("--counts", "--busy-vcpus=1", "--busy-vcpus");
}

int main(void)
{
	test_taken();
	test_churn();
	test_iter_at();
	test_design();
	test_sizes();
	test_refused();
	test_inject();
	test_modes();
	test_rounds();
	return tap_finish(false);
}
