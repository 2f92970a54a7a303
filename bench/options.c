// SPDX-License-Identifier: GPL-2.0
/*
 * convbench's options. Every bad value is refused with the option's name
 * and what it expects (exit status 2 in the caller); nothing here needs
 * root or KVM, so the unit tests exercise it directly.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "design.h"

#include "options.h"
#include "units.h"

#define MAX_CONV_SIZE	(256ULL << 20)

uint64_t parse_size(const char *s)
{
	uint64_t v = size_parse(s);

	if (!v || v > MAX_CONV_SIZE || v % 4096)
		return 0;
	return v;
}

/* the shuffle's seed when none is given: random, and recorded */
static uint64_t random_seed(void)
{
	uint64_t s = 0;

	/* a kernel just booted may have no entropy yet: the clock then */
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s)) {
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		s = ((uint64_t)time(NULL) << 20) ^ (uint64_t)t.tv_nsec ^
		    ((uint64_t)getpid() << 40);
	}
	/* JSON readers keep 53 bits of a number exactly: stay below */
	return s >> 11;
}

/* a whole number in [min, max] or -1 */
static int parse_uint(const char *s, unsigned long long min,
		      unsigned long long max, unsigned long long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || *end || *out < min || *out > max)
		return -1;
	return 0;
}

static int bad(FILE *err, const char *opt, const char *val,
	       const char *expected)
{
	fprintf(err, "convbench: invalid value '%s' for --%s: expected %s\n",
		val, opt, expected);
	return 2;
}

static int parse_modes(char *arg, struct env *env, FILE *err)
{
	char *copy = strdup(arg), *rest = copy, *tok;

	if (!copy)
		return 2;
	memset(env->modes, 0, sizeof(env->modes));
	while ((tok = strsep(&rest, ","))) {
		int m = conv_mode_of(tok);

		if (m < 0) {
			free(copy);
			return bad(err, "mode", arg,
				   "destructive, inplace or gmem (comma list)");
		}
		env->modes[m] = true;
	}
	free(copy);
	if (!env->modes[MODE_DESTRUCTIVE] && !env->modes[MODE_INPLACE] &&
	    !env->modes[MODE_GMEM])
		return bad(err, "mode", arg, "destructive, inplace or gmem");
	return 0;
}

static int parse_sizes(char *arg, struct env *env, FILE *err)
{
	char *copy = strdup(arg), *rest = copy, *tok;
	int r = 0;

	if (!copy)
		return 2;
	env->nsizes = 0;
	/* strsep, not strtok: "4K,,2M" has an empty item, an error */
	while (!r && (tok = strsep(&rest, ","))) {
		uint64_t b = parse_size(tok);

		if (!b)
			r = bad(err, "size", tok,
				"a multiple of 4K up to 256M, e.g. 4K,64K,2M");
		else if (env->nsizes == MAX_SIZES)
			r = bad(err, "size", arg, "at most 16 sizes");
		else
			env->sizes[env->nsizes++] = b;
	}
	free(copy);
	if (!r && !env->nsizes)
		r = bad(err, "size", arg, "a list such as 4K,64K,2M");
	return r;
}

/* SIZE:N,SIZE:N (checked against --size at the end) */
static int parse_iter_at(char *arg, struct env *env, FILE *err)
{
	static const char *const want = "SIZE:N pairs such as 4K:600,64K:600 "
		"(N a whole number from 1 to 100000, each size once)";
	char *copy = strdup(arg), *rest = copy, *tok, *colon, *end;
	unsigned int i;
	int r = 0;

	if (!copy)
		return 2;
	env->niter_at = 0;
	while (!r && (tok = strsep(&rest, ","))) {
		unsigned long n;
		uint64_t b;

		colon = strchr(tok, ':');
		if (!colon) {
			r = bad(err, "iterations-at", tok, want);
			break;
		}
		*colon = '\0';
		b = parse_size(tok);
		errno = 0;
		n = strtoul(colon + 1, &end, 10);
		if (!b || errno || end == colon + 1 || *end || n < 1 ||
		    n > 100000 || colon[1] == '-' ||
		    env->niter_at == MAX_SIZES) {
			*colon = ':';
			r = bad(err, "iterations-at", tok, want);
			break;
		}
		for (i = 0; i < env->niter_at; i++)
			if (env->iter_at_size[i] == b)
				r = bad(err, "iterations-at", arg, want);
		env->iter_at_size[env->niter_at] = b;
		env->iter_at_n[env->niter_at++] = n;
	}
	free(copy);
	if (!r && !env->niter_at)
		r = bad(err, "iterations-at", arg, want);
	return r;
}

/* WHAT@K or corrupt@K:OFF (checked against the sizes at the end) */
static int parse_inject(const char *arg, struct env *env, FILE *err)
{
	static const char *const kinds[] = {
		[INJECT_FAIL] = "fail", [INJECT_SKIP] = "skip",
		[INJECT_CORRUPT] = "corrupt", [INJECT_HANG] = "hang",
		[INJECT_SKEW] = "skew", [INJECT_IO_GUEST] = "io-guest",
		[INJECT_IO_HOST] = "io-host",
	};
	static const char expected[] =
		"fail@K, skip@K, hang@K, skew@K, io-guest@K, io-host@K or corrupt@K:OFF (K, OFF whole numbers)";
	const char *at = strchr(arg, '@');
	unsigned long long k, off = 0;
	char num[32], *colon;
	unsigned int i;

	if (!at || at - arg > 16 || strlen(at + 1) >= sizeof(num))
		return bad(err, "inject", arg, expected);
	for (i = INJECT_FAIL; i < INJECT_NR; i++)
		if (strlen(kinds[i]) == (size_t)(at - arg) &&
		    !strncmp(arg, kinds[i], at - arg))
			break;
	if (i >= INJECT_NR)
		return bad(err, "inject", arg, expected);
	snprintf(num, sizeof(num), "%s", at + 1);
	colon = strchr(num, ':');
	if (colon)
		*colon = '\0';
	if ((colon != NULL) != (i == INJECT_CORRUPT) ||
	    parse_uint(num, 0, UINT32_MAX, &k) ||
	    (colon && (parse_uint(colon + 1, 0, MAX_CONV_SIZE - 8, &off) ||
		       off % 8)))
		return bad(err, "inject", arg, i == INJECT_CORRUPT ?
			   "corrupt@K:OFF, OFF a multiple of 8" : expected);
	if (i == INJECT_CORRUPT && k % 2)
		return bad(err, "inject", arg,
			   "an even K for corrupt (a to-shared conversion)");
	env->inject.kind = i;
	env->inject.k = k;
	env->inject.off = off;
	return 0;
}

/* what --inject needs of the other options */
static int check_inject(const struct env *env, FILE *err)
{
	unsigned int i;

	if (env->inject.kind != INJECT_CORRUPT)
		return 0;
	for (i = 0; i < env->nsizes; i++) {
		if (env->inject.off + 8 > env->sizes[i]) {
			fprintf(err, "convbench: --inject=corrupt: offset %llu "
				"is outside a %llu-byte range\n",
				(unsigned long long)env->inject.off,
				(unsigned long long)env->sizes[i]);
			return 2;
		}
	}
	if ((env->modes[MODE_DESTRUCTIVE] || env->modes[MODE_GMEM]) &&
	    env->preserve) {
		fprintf(err, "convbench: --inject=corrupt needs --no-preserve "
			"with --mode=destructive or gmem (the guest's copy back "
			"would overwrite the word)\n");
		return 2;
	}
	return 0;
}

/*
 * The option table, as perf's: each option's name, argument, parser and
 * what a bad value is told it expects. --help is usage.c's text.
 */
struct opt_ctx {
	struct env *env;
	FILE *out, *err;
	bool have_iter;		/* --iterations given (excludes --duration) */
	bool have_rounds;	/* --rounds given (--design: must be 1) */
	bool have_size;		/* --size given (not with --workload=churn) */
	bool have_churn;	/* a --churn-* option given */
	/* --churn-range, --churn-ops, --churn-interval given */
	bool have_range, have_ops, have_interval;
	bool have_mix;			/* --churn-mix given */
};

struct opt {
	const char *name;
	int has_arg;		/* getopt_long's no_, required_, optional_argument */
	int short_name;		/* 0: long only */
	int (*parse)(const struct opt *o, const char *arg, struct opt_ctx *c);
	/* for the generic parsers: the field of struct env and its bounds */
	size_t off;
	size_t size;		/* of the field: 1 (bool), 4 or 8 */
	unsigned long long min, max;
	const char *expected;
};

#define FIELD(f)	.off = offsetof(struct env, f), \
			.size = sizeof(((struct env *)0)->f)

static void *field(const struct opt *o, struct opt_ctx *c)
{
	return (char *)c->env + o->off;
}

/* a whole number in [min, max] into a 4- or 8-byte field */
static int opt_uint(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	unsigned long long v;

	if (parse_uint(arg, o->min, o->max, &v))
		return bad(c->err, o->name, arg, o->expected);
	if (o->size == sizeof(uint64_t))
		*(uint64_t *)field(o, c) = v;
	else
		*(uint32_t *)field(o, c) = v;
	return 0;
}

/* a flag: the bool field becomes min (1 or 0) */
static int opt_flag(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	(void)arg;
	*(bool *)field(o, c) = o->min;
	return 0;
}

/* a folder: any non-empty path */
static int opt_path(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	if (!*arg)
		return bad(c->err, o->name, arg, "a directory path");
	*(const char **)field(o, c) = arg;
	return 0;
}

static int opt_mode(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	(void)o;
	return parse_modes((char *)arg, c->env, c->err) ? 2 : 0;
}

static int opt_sizes(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	(void)o;
	c->have_size = true;
	return parse_sizes((char *)arg, c->env, c->err) ? 2 : 0;
}

static int opt_churn_uint(const struct opt *o, const char *arg,
			  struct opt_ctx *c)
{
	c->have_churn = true;
	c->have_ops |= !strcmp(o->name, "churn-ops");
	c->have_interval |= !strcmp(o->name, "churn-interval");
	return opt_uint(o, arg, c);
}

static int opt_churn_flag(const struct opt *o, const char *arg,
			  struct opt_ctx *c)
{
	c->have_churn = true;
	return opt_flag(o, arg, c);
}

static int opt_iter_at(const struct opt *o, const char *arg,
		       struct opt_ctx *c)
{
	char *copy = strdup(arg);
	int r;

	(void)o;
	if (!copy)
		return 2;
	c->have_iter = true;
	r = parse_iter_at(copy, c->env, c->err) ? 2 : 0;
	free(copy);
	return r;
}

static int opt_inject(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	(void)o;
	return parse_inject(arg, c->env, c->err) ? 2 : 0;
}

static int opt_iterations(const struct opt *o, const char *arg,
			  struct opt_ctx *c)
{
	c->have_iter = true;
	return opt_uint(o, arg, c);
}

static int opt_rounds(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	c->have_rounds = true;
	return opt_uint(o, arg, c);
}

static int opt_duration(const struct opt *o, const char *arg,
			struct opt_ctx *c)
{
	struct env *env = c->env;
	char *end;

	errno = 0;
	env->duration_s = strtod(arg, &end);
	if (errno || *end || end == arg ||
	    !(env->duration_s > 0 && env->duration_s <= 86400))
		return bad(c->err, o->name, arg, o->expected);
	return 0;
}

static int opt_direction(const struct opt *o, const char *arg,
			 struct opt_ctx *c)
{
	if (conv_dir_of(arg) == DIR_TO_SHARED)
		c->env->dir_mask = DIRS_TO_SHARED;
	else if (conv_dir_of(arg) == DIR_TO_PRIVATE)
		c->env->dir_mask = DIRS_TO_PRIVATE;
	else if (!strcmp(arg, "roundtrip"))
		c->env->dir_mask = DIRS_ROUNDTRIP;
	else
		return bad(c->err, o->name, arg, o->expected);
	return 0;
}

static int opt_trigger(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	if (!strcmp(arg, "explicit"))
		c->env->trigger = TRIGGER_EXPLICIT;
	else if (!strcmp(arg, "implicit"))
		c->env->trigger = TRIGGER_IMPLICIT;
	else
		return bad(c->err, o->name, arg, o->expected);
	return 0;
}

static int opt_format(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	if (!strcmp(arg, "text"))
		c->env->format = FORMAT_TEXT;
	else if (!strcmp(arg, "csv"))
		c->env->format = FORMAT_CSV;
	else if (!strcmp(arg, "json"))
		c->env->format = FORMAT_JSON;
	else
		return bad(c->err, o->name, arg, o->expected);
	return 0;
}

/* --design=rounds=R,kernels=v5+gmem,traced=0|1,blocks=B */
static int opt_design(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	static const char what[] = "rounds=R,kernels=v5|gmem|v5+gmem,traced=0|1,blocks=B (R 1 to 64, B even, 2 to 16)";
	char *copy = strdup(arg), *rest = copy, *tok, *v, *end;
	struct env *env = c->env;
	unsigned long n;
	unsigned char seen[4] = { 0 };

	if (!copy)
		return bad(c->err, o->name, arg, what);
	env->design = true;
	env->design_kernel[0] = env->design_kernel[1] = false;
	while ((tok = strsep(&rest, ","))) {
		v = strchr(tok, '=');
		if (!v)
			goto fail;
		*v++ = 0;
		errno = 0;
		if (!strcmp(tok, "rounds") && !seen[0]++) {
			n = strtoul(v, &end, 10);
			if (*end || !*v || errno || n < 1 || n > 64)
				goto fail;
			env->design_rounds = n;
		} else if (!strcmp(tok, "blocks") && !seen[1]++) {
			n = strtoul(v, &end, 10);
			if (*end || !*v || errno || n < 2 || n > 16 || n % 2)
				goto fail;
			env->design_blocks = n;
		} else if (!strcmp(tok, "traced") && !seen[2]++) {
			if (strcmp(v, "0") && strcmp(v, "1"))
				goto fail;
			env->design_traced = *v == '1';
		} else if (!strcmp(tok, "kernels") && !seen[3]++) {
			if (!strcmp(v, "v5") || !strcmp(v, "v5+gmem") ||
			    !strcmp(v, "gmem+v5"))
				env->design_kernel[0] = true;
			if (!strcmp(v, "gmem") || !strcmp(v, "v5+gmem") ||
			    !strcmp(v, "gmem+v5"))
				env->design_kernel[1] = true;
			if (!env->design_kernel[0] && !env->design_kernel[1])
				goto fail;
		} else {
			goto fail;
		}
	}
	free(copy);
	if (!seen[0] || !seen[1] || !seen[2] || !seen[3])
		return bad(c->err, o->name, arg, what);
	return 0;
fail:
	free(copy);
	return bad(c->err, o->name, arg, what);
}

static int opt_trace(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	if (!arg || !strcmp(arg, "default"))
		c->env->trace = TRACE_DEFAULT;
	else if (!strcmp(arg, "all"))
		c->env->trace = TRACE_ALL;
	else if (!strcmp(arg, "empty"))
		c->env->trace = TRACE_EMPTY;
	else
		return bad(c->err, o->name, arg, o->expected);
	return 0;
}

static int opt_workload(const struct opt *o, const char *arg,
			struct opt_ctx *c)
{
	c->env->churn = !strcmp(arg, "churn") || !strcmp(arg, "split") ||
			!strcmp(arg, "accept") || !strcmp(arg, "io");
	c->env->churn_p.events = !strcmp(arg, "split");
	c->env->churn_p.accept = !strcmp(arg, "accept");
	c->env->churn_p.io = !strcmp(arg, "io");
	if (!c->env->churn && strcmp(arg, "conversion"))
		return bad(c->err, o->name, arg, o->expected);
	return 0;
}

/* --churn-range=SIZE: a multiple of 2M from 2M to 1G */
static int opt_churn_range(const struct opt *o, const char *arg,
			   struct opt_ctx *c)
{
	uint64_t v = size_parse(arg);

	if (!v || v % (2ULL << 20) || v > (1ULL << 30))
		return bad(c->err, o->name, arg, o->expected);
	c->env->churn_p.range = v;
	c->have_churn = c->have_range = true;
	return 0;
}

/* --churn-mix=SIZE:WEIGHT,...: sizes 4K multiples up to 2M, weights 1-1000 */
static int opt_churn_mix(const struct opt *o, const char *arg,
			 struct opt_ctx *c)
{
	struct churn_params *cp = &c->env->churn_p;
	char *copy = strdup(arg), *rest = copy, *tok, *w;
	unsigned long long weight;
	unsigned int n = 0, i;
	uint64_t size;

	if (!copy)
		return 2;
	while ((tok = strsep(&rest, ","))) {
		w = strchr(tok, ':');
		if (!w || n == CHURN_CLASSES)
			goto fail;
		*w++ = 0;
		size = size_parse(tok);
		if (!size || size % 4096 || size > (1ULL << 30) ||
		    parse_uint(w, 1, 1000, &weight))
			goto fail;
		for (i = 0; i < n; i++)
			if (cp->size[i] == size)
				goto fail;
		cp->size[n] = size;
		cp->weight[n++] = weight;
	}
	free(copy);
	cp->nclasses = n;
	c->have_churn = c->have_mix = true;
	return 0;
fail:
	free(copy);
	return bad(c->err, o->name, arg, o->expected);
}

static int opt_clock_mark(const struct opt *o, const char *arg,
			  struct opt_ctx *c)
{
	if (!*arg || strlen(arg) > 32 ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(arg))
		return bad(c->err, o->name, arg, o->expected);
	c->env->clock_mark = arg;
	return 0;
}

static int opt_help(const struct opt *o, const char *arg, struct opt_ctx *c)
{
	(void)o;
	(void)arg;
	fputs(convbench_usage, c->out);
	return 1;
}

#define REQ	required_argument
#define OPT(n, a, p)	.name = n, .has_arg = a, .parse = p
static const struct opt opts[] = {
	{ OPT("mode", REQ, opt_mode) },
	{ OPT("size", REQ, opt_sizes) },
	{ OPT("iterations", REQ, opt_iterations), FIELD(iterations), .min = 1,
	  .max = 100000, .expected = "a whole number from 1 to 100000" },
	{ OPT("iterations-at", REQ, opt_iter_at) },
	{ OPT("duration", REQ, opt_duration),
	  .expected = "seconds, more than 0 and at most 86400" },
	{ OPT("warmup", REQ, opt_uint), FIELD(warmup), .min = 0, .max = 100000,
	  .expected = "a whole number from 0 to 100000" },
	{ OPT("vcpus", REQ, opt_uint), FIELD(vcpus), .min = 1, .max = 32,
	  .expected = "a whole number from 1 to 32" },
	{ OPT("busy-vcpus", REQ, opt_uint), FIELD(busy_vcpus), .min = 0,
	  .max = 31, .expected = "a whole number from 0 to 31" },
	{ OPT("direction", REQ, opt_direction),
	  .expected = "to-shared, to-private or roundtrip" },
	{ OPT("trigger", REQ, opt_trigger), .expected = "explicit or implicit" },
	{ OPT("preserve", no_argument, opt_flag), FIELD(preserve), .min = true },
	{ OPT("no-preserve", no_argument, opt_flag), FIELD(preserve),
	  .min = false },
	{ OPT("out", REQ, opt_path), FIELD(out_dir) },
	{ OPT("format", REQ, opt_format), .expected = "text, csv or json" },
	{ OPT("seed", REQ, opt_uint), FIELD(seed), .min = 0, .max = UINT64_MAX,
	  .expected = "a whole number" },
	{ OPT("stall-timeout", REQ, opt_uint), FIELD(stall_s), .min = 1,
	  .max = 3600, .expected = "seconds from 1 to 3600" },
	{ OPT("trace", optional_argument, opt_trace),
	  .expected = "default, all or empty" },
	{ OPT("rounds", REQ, opt_rounds), FIELD(rounds), .min = 1,
	  .max = MAX_ROUNDS, .expected = "a whole number from 1 to 64" },
	{ OPT("first-round", REQ, opt_uint), FIELD(first_round), .min = 0,
	  .max = 1000000, .expected = "a whole number from 0 to 1000000" },
	{ OPT("order-seed", REQ, opt_uint), FIELD(order_seed), .min = 0,
	  .max = (1ULL << 53) - 1, .expected = "a whole number below 2^53" },
	{ OPT("design", REQ, opt_design) },
	{ OPT("design-boots", no_argument, opt_flag), FIELD(design_boots),
	  .min = true },
	{ OPT("counts", no_argument, opt_flag), FIELD(counts), .min = true },
	{ OPT("merge", REQ, opt_path), FIELD(merge) },
	{ OPT("gmem-run", REQ, opt_path), FIELD(gmem_run) },
	{ OPT("history", REQ, opt_path), FIELD(history) },
	{ OPT("clock-mark", REQ, opt_clock_mark),
	  .expected = "a label of up to 32 [a-z0-9-_]" },
	{ OPT("max-exits", REQ, opt_uint), FIELD(max_exits), .min = 1,
	  .max = UINT32_MAX, .expected = "a whole number from 1" },
	{ OPT("debug", no_argument, opt_flag), FIELD(debug), .min = true },
	{ OPT("inject", REQ, opt_inject) },
	{ OPT("no-vm", no_argument, opt_flag), FIELD(no_vm), .min = true },
	{ OPT("vm-cpus", REQ, opt_uint), FIELD(vm_cpus), .min = 1, .max = 64,
	  .expected = "a whole number from 1 to 64" },
	{ OPT("vm-mem", REQ, opt_uint), FIELD(vm_mem_mb), .min = 256,
	  .max = 1048576, .expected = "megabytes from 256 to 1048576" },
	{ OPT("vm-timeout", REQ, opt_uint), FIELD(vm_timeout_s), .min = 1,
	  .max = 86400, .expected = "seconds from 1 to 86400" },
	{ OPT("workload", REQ, opt_workload),
	  .expected = "conversion, churn, split, accept or io" },
	{ OPT("churn-range", REQ, opt_churn_range),
	  .expected = "a multiple of 2M from 2M to 1G, e.g. 64M" },
	{ OPT("churn-ops", REQ, opt_churn_uint), FIELD(churn_p.ops), .min = 1,
	  .max = 1000000, .expected = "a whole number from 1 to 1000000" },
	{ OPT("churn-interval", REQ, opt_churn_uint), FIELD(churn_p.interval),
	  .min = 1, .max = 1000000,
	  .expected = "a whole number from 1 to 1000000" },
	{ OPT("churn-merge", no_argument, opt_churn_flag), FIELD(churn_p.merge),
	  .min = true },
	{ OPT("churn-mix", REQ, opt_churn_mix),
	  .expected = "SIZE:WEIGHT pairs, sizes multiples of 4K up to 1G, each once, weights 1 to 1000, at most 8, e.g. 4K:35,16K:25,64K:30,2M:10" },
	{ OPT("verbose", no_argument, opt_flag), .short_name = 'v',
	  FIELD(verbose), .min = true },
	{ OPT("help", no_argument, opt_help), .short_name = 'h' },
};
#undef OPT
#undef REQ

#define NR_OPTS		(sizeof(opts) / sizeof(opts[0]))
/* getopt_long's value of a long-only option: its index past the bytes */
#define LONG_VAL(i)	(256 + (int)(i))

static void env_defaults(struct env *env, int argc, char **argv)
{
	memset(env, 0, sizeof(*env));
	env->modes[MODE_DESTRUCTIVE] = true;
	env->sizes[0] = 4096;
	env->nsizes = 1;
	env->iterations = 1000;
	env->warmup = 10;
	env->vcpus = 1;
	env->dir_mask = DIRS_ROUNDTRIP;
	env->trigger = TRIGGER_EXPLICIT;
	env->preserve = true;
	env->format = FORMAT_TEXT;
	env->seed = 1;
	env->stall_s = 60;
	env->rounds = 5;
	env->vm_timeout_s = 86400;
	env->order_seed = random_seed();
	/*
	 * churn: most conversions 4K to 64K at random 4K offsets, some of
	 * whole aligned 2M ranges, in a 64M range per vCPU
	 */
	env->churn_p = (struct churn_params) {
		.range = 64ULL << 20, .ops = 4000, .interval = 250,
		.nclasses = 4,
		.size = { 4096, 16384, 65536, 2ULL << 20 },
		.weight = { 35, 25, 30, 10 },
		.io_bad_guest = CHURN_IO_NO_BAD, .io_bad_host = CHURN_IO_NO_BAD,
	};
	env->argc = argc;
	env->argv = argv;
}

/* --design against the rest */
static int check_design(const struct opt_ctx *c)
{
	struct env *env = c->env;
	bool v5 = env->modes[MODE_DESTRUCTIVE] || env->modes[MODE_INPLACE];
	FILE *err = c->err;
	unsigned int i, j;

	if (env->design_boots && !env->design) {
		fprintf(err, "convbench: --design-boots prints the boots of a --design: give one\n");
		return 2;
	}
	if (!env->design)
		return 0;
	for (i = 0; i < env->nsizes; i++)
		for (j = 0; j < i; j++)
			if (env->sizes[i] == env->sizes[j]) {
				fprintf(err, "convbench: --design: --size lists a size twice\n");
				return 2;
			}
	if (env->design_boots || env->merge)
		return 0;
	if (!c->have_rounds)
		env->rounds = 1;	/* a boot runs its round */
	if (env->rounds != 1 || env->first_round >= env->design_rounds) {
		fprintf(err, "convbench: --design runs one boot of the design: --rounds=1 and --first-round below its rounds (%u)\n",
			env->design_rounds);
		return 2;
	}
	if (!env->iterations || env->iterations < env->design_blocks) {
		fprintf(err, "convbench: --design splits --iterations over %u blocks: give at least %u iterations (not --duration)\n",
			env->design_blocks, env->design_blocks);
		return 2;
	}
	for (i = 0; i < env->niter_at; i++)
		if (env->iter_at_n[i] < env->design_blocks) {
			fprintf(err, "convbench: --design splits --iterations-at over %u blocks: give each size at least %u iterations\n",
				env->design_blocks, env->design_blocks);
			return 2;
		}
	if ((v5 && env->modes[MODE_GMEM]) ||
	    (v5 && (!env->modes[MODE_DESTRUCTIVE] || !env->modes[MODE_INPLACE])) ||
	    (v5 && !env->design_kernel[0]) ||
	    (env->modes[MODE_GMEM] && !env->design_kernel[1])) {
		fprintf(err, "convbench: --design: a boot runs one kernel of the design: --mode=destructive,inplace (v5) or --mode=gmem\n");
		return 2;
	}
	if (env->trace && !env->design_traced) {
		fprintf(err, "convbench: --design with traced=0 has no traced phase for --trace\n");
		return 2;
	}
	return 0;
}

static bool io_inject(enum inject_kind k)
{
	return k == INJECT_IO_GUEST || k == INJECT_IO_HOST;
}

/* --workload=churn, split, accept and io against the rest */
static int check_churn(const struct opt_ctx *c)
{
	struct env *env = c->env;
	const char *what = NULL;
	unsigned int i;

	if (!env->churn) {
		if (c->have_churn) {
			fprintf(c->err, "convbench: the --churn-* options go with --workload=churn, split, accept or io\n");
			return 2;
		}
		if (io_inject(env->inject.kind)) {
			fprintf(c->err, "convbench: --inject=io-guest@K and io-host@K go with --workload=io\n");
			return 2;
		}
		return 0;
	}
	/* split: one 2M folio per vCPU, 200 events, unless asked */
	if (env->churn_p.events && !c->have_range)
		env->churn_p.range = 2ULL << 20;
	if (env->churn_p.events && !c->have_ops)
		env->churn_p.ops = 400;
	/* accept: 256M, in chunks of 4K, 2M and 4M, unless asked */
	if (env->churn_p.accept && !c->have_range)
		env->churn_p.range = 256ULL << 20;
	if (env->churn_p.accept && !c->have_mix) {
		static const uint64_t chunks[] = { 4096, 2ULL << 20, 4ULL << 20 };

		env->churn_p.nclasses = 3;
		for (i = 0; i < 3; i++) {
			env->churn_p.size[i] = chunks[i];
			env->churn_p.weight[i] = 1;
		}
	}
	/*
	 * io: requests of 4K to 2M, 100 by each strategy in blocks of 25;
	 * the range holds the buffer and the pool, each the largest size
	 */
	if (env->churn_p.io && !c->have_mix) {
		static const uint64_t io_sizes[] = {
			4096, 16384, 65536, 262144, 1ULL << 20, 2ULL << 20,
		};

		env->churn_p.nclasses = 6;
		for (i = 0; i < 6; i++) {
			env->churn_p.size[i] = io_sizes[i];
			env->churn_p.weight[i] = 1;
		}
	}
	if (env->churn_p.io && !c->have_ops)
		env->churn_p.ops = 100;
	if (env->churn_p.io && !c->have_interval)
		env->churn_p.interval = 25;
	if (env->churn_p.io && !c->have_range)
		env->churn_p.range = 2 * ((churn_largest(&env->churn_p) + (2ULL << 20) - 1) &
					  ~((2ULL << 20) - 1));
	if (c->have_size)
		what = "--size (the range is --churn-range, the sizes --churn-mix)";
	else if (env->churn_p.events && env->vcpus != 1)
		what = "--vcpus above 1 (an event's work is the VM's counts: one vCPU)";
	else if (env->churn_p.accept && (c->have_ops || c->have_interval))
		what = "--churn-ops or --churn-interval (a sweep converts the range once each way, chunk by chunk)";
	else if (c->have_iter || env->duration_s > 0)
		what = "--iterations, --iterations-at or --duration (the sequence is --churn-ops long)";
	else if (env->trigger != TRIGGER_EXPLICIT)
		what = "--trigger=implicit (churn converts by hypercall)";
	else if (env->dir_mask != DIRS_ROUNDTRIP)
		what = "--direction (an operation converts its range to the opposite of its first page's state)";
	else if (!env->preserve && !env->churn_p.accept)
		what = "--no-preserve (churn verifies that every page keeps its data)";
	else if (env->trace || (env->counts && !env->churn_p.io))
		what = env->churn_p.io ? "--trace (--counts counts its blocks' work)" :
		       "--trace or --counts";
	else if (env->design || env->merge ||
		 (env->inject.kind != INJECT_NONE && !io_inject(env->inject.kind)) ||
		 (io_inject(env->inject.kind) && !env->churn_p.io))
		what = env->churn_p.io ? "--design, --merge or an --inject but io-guest@K and io-host@K" :
		       "--design, --merge or --inject";
	else if (env->churn_p.merge && (env->churn_p.io || env->churn_p.accept))
		what = "--churn-merge (it goes with churn and split)";
	else if (env->churn_p.merge &&
		 (!env->modes[MODE_INPLACE] || env->modes[MODE_DESTRUCTIVE] ||
		  env->modes[MODE_GMEM]))
		what = "--churn-merge with a --mode but inplace (the merge back is the in-place variant's)";
	else if (env->churn_p.io && 2 * churn_largest(&env->churn_p) > env->churn_p.range)
		what = "a --churn-range below twice the largest --churn-mix size (the buffer and the bounce pool)";
	if (what) {
		fprintf(c->err, "convbench: --workload=%s does not take %s\n",
			env->churn_p.accept ? "accept" :
			env->churn_p.events ? "split" :
			env->churn_p.io ? "io" : "churn", what);
		return 2;
	}
	if (env->inject.kind == INJECT_IO_GUEST)
		env->churn_p.io_bad_guest = env->inject.k;
	if (env->inject.kind == INJECT_IO_HOST)
		env->churn_p.io_bad_host = env->inject.k;
	for (i = 0; i < env->churn_p.nclasses; i++) {
		if (env->churn_p.size[i] > env->churn_p.range) {
			fprintf(c->err, "convbench: --churn-mix: a size is larger than --churn-range\n");
			return 2;
		}
		if (env->churn_p.accept && env->churn_p.range % env->churn_p.size[i]) {
			fprintf(c->err, "convbench: --workload=accept: each --churn-mix size (a chunk) must divide --churn-range\n");
			return 2;
		}
	}
	return 0;
}

/* what the options ask of each other, once all are read */
static int check_together(const struct opt_ctx *c)
{
	const struct env *env = c->env;
	FILE *err = c->err;
	unsigned int i, j;
	int r;

	if (env->duration_s > 0 && c->have_iter) {
		fprintf(err, "convbench: --iterations and --duration exclude each other\n");
		return 2;
	}
	for (i = 0; i < env->niter_at; i++) {
		for (j = 0; j < env->nsizes; j++)
			if (env->sizes[j] == env->iter_at_size[i])
				break;
		if (j == env->nsizes) {
			fprintf(err, "convbench: --iterations-at names a size that --size does not list\n");
			return 2;
		}
	}
	if (env->merge && !env->out_dir) {
		fprintf(err, "convbench: --merge needs --out=DIR for the merged run\n");
		return 2;
	}
	if (env->history && !env->merge) {
		fprintf(err, "convbench: --history only goes with --merge (the earlier runs listed beside a merged run's ratios)\n");
		return 2;
	}
	if (env->gmem_run && !env->merge) {
		fprintf(err, "convbench: --gmem-run only goes with --merge (the ratios of a merged run against gmem's)\n");
		return 2;
	}
	if (env->busy_vcpus && (env->churn || env->vcpus + env->busy_vcpus > 32)) {
		fprintf(err, "convbench: --busy-vcpus goes with the conversion workload, and --vcpus plus --busy-vcpus is at most 32\n");
		return 2;
	}
	if (env->counts && env->busy_vcpus) {
		fprintf(err, "convbench: --counts counts one vCPU's conversions alone: no --busy-vcpus\n");
		return 2;
	}
	if (env->counts && env->vcpus > 1) {
		fprintf(err, "convbench: --counts counts one vCPU's conversions: use --vcpus=1\n");
		return 2;
	}
	if (env->counts && env->trace) {
		fprintf(err, "convbench: --counts and --trace exclude each other (the counters are BPF programs too)\n");
		return 2;
	}
	r = check_churn(c);
	if (r)
		return r;
	r = check_design(c);
	return r ? r : check_inject(env, err);
}

/* the table entry getopt_long's value c stands for, or NULL */
static const struct opt *opt_of(int c)
{
	size_t i;

	for (i = 0; i < NR_OPTS; i++)
		if (c == (opts[i].short_name ? opts[i].short_name : LONG_VAL(i)))
			return &opts[i];
	return NULL;
}

int parse_options(int argc, char **argv, struct env *env, FILE *out,
		  FILE *err)
{
	struct opt_ctx ctx = { .env = env, .out = out, .err = err };
	struct option longs[NR_OPTS + 1] = { { 0 } };
	const struct opt *o;
	size_t i;
	int c, r;

	for (i = 0; i < NR_OPTS; i++)
		longs[i] = (struct option) {
			opts[i].name, opts[i].has_arg, NULL,
			opts[i].short_name ? opts[i].short_name : LONG_VAL(i),
		};
	env_defaults(env, argc, argv);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hv", longs, NULL)) != -1) {
		if (c == ':') {
			fprintf(err, "convbench: option '%s' needs a value; see --help\n",
				argv[optind - 1]);
			return 2;
		}
		o = opt_of(c);
		if (!o) {
			fprintf(err, "convbench: unknown option '%s'; see --help\n",
				argv[optind - 1]);
			return 2;
		}
		r = o->parse(o, optarg, &ctx);
		if (r)
			return r;
	}
	if (optind < argc) {
		fprintf(err, "convbench: unexpected argument '%s'; see --help\n",
			argv[optind]);
		return 2;
	}
	if (env->duration_s > 0)
		env->iterations = 0;
	return check_together(&ctx);
}

void env_design_params(const struct env *env, struct design_params *p)
{
	*p = (struct design_params) {
		.rounds = env->design_rounds,
		.kernel = { env->design_kernel[0], env->design_kernel[1] },
		.traced = env->design_traced,
		.nsizes = env->nsizes,
		.blocks = env->design_blocks,
		.seed = env->order_seed,
	};
	memcpy(p->sizes, env->sizes, env->nsizes * sizeof(*env->sizes));
}
