// SPDX-License-Identifier: GPL-2.0
/*
 * The earlier runs of the same build on the same machine: bench/report/history.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history.h"
#include "jsonw.h"
#include "stats.h"
#include "units.h"
#include "cell_types.h"

/* provenance members two runs must share */
static const char *const same_keys[] = {
	"kernel_release", "series_sha", "config_sha", "kernel_key",
	"qemu_version", "accel",
	"cpu_model", "online_cpus", NULL
};

/* arguments that split the workload, not change it */
static const char *const split_args[] = {
	"--rounds=", "--first-round=", "--order-seed=", "--out=", NULL
};

static bool jv_absent(const struct jv *v)
{
	return !v || v->type == JV_NULL;
}

static bool jv_same(const struct jv *a, const struct jv *b)
{
	if (jv_absent(a) || jv_absent(b))
		return jv_absent(a) && jv_absent(b);
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case JV_BOOL:
		return a->b == b->b;
	case JV_NUM:
		return a->num == b->num;
	case JV_STR:
		return !strcmp(a->str, b->str);
	default:
		return false;
	}
}

static bool split_arg(const char *s)
{
	unsigned int i;

	for (i = 0; split_args[i]; i++)
		if (!strncmp(s, split_args[i], strlen(split_args[i])))
			return true;
	return false;
}

/* each argument of a that is not a split one is in b as often */
static bool argv_covers(const struct jv *a, const struct jv *b)
{
	size_t i, j, na, nb;

	for (i = 1; i < jv_len(a); i++) {
		const char *s = jv_str(jv_at(a, i), "");

		if (split_arg(s))
			continue;
		for (na = 0, j = 1; j < jv_len(a); j++)
			na += !strcmp(jv_str(jv_at(a, j), ""), s);
		for (nb = 0, j = 1; j < jv_len(b); j++)
			nb += !strcmp(jv_str(jv_at(b, j), ""), s);
		if (na != nb)
			return false;
	}
	return true;
}

enum { SAME, OTHER_BUILD, OTHER_ARGS };

static int differs(const struct jv *p, const struct jv *q)
{
	unsigned int i;

	if (!p || !q)
		return OTHER_BUILD;
	for (i = 0; same_keys[i]; i++)
		if (!jv_same(jv_get(p, same_keys[i]), jv_get(q, same_keys[i])))
			return OTHER_BUILD;
	if (argv_covers(jv_get(p, "argv"), jv_get(q, "argv")) &&
	    argv_covers(jv_get(q, "argv"), jv_get(p, "argv")))
		return SAME;
	return OTHER_ARGS;
}

static bool same_build(const struct jv *p, const struct jv *q)
{
	return differs(p, q) == SAME;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return b && !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int history_load(struct history *h, const char *root, const char *self,
		 const struct jv *prov, const struct jv *gprov)
{
	char **names = NULL, path[PATH_MAX], err[512];
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int r = 0;

	memset(h, 0, sizeof(*h));
	h->root = root;
	d = opendir(root);
	if (!d) {
		fprintf(stderr, "convbench: --history=%s: %s (expected the "
			"folder of earlier runs, e.g. results)\n", root,
			strerror(errno));
		return 2;
	}
	while ((de = readdir(d))) {
		char **nn;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/summary.json", root,
			 de->d_name);
		if (access(path, F_OK))
			continue;	/* not a run (or not finished) */
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				r = 1;
				break;
			}
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			r = 1;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	/* oldest first (names start with the date); the newest kept */
	for (i = 0; i < n && !r; i++) {
		struct jv *sum, *gsum;
		char gp[PATH_MAX];
		int d;

		snprintf(path, sizeof(path), "%s/%s", root, names[i]);
		if (same_dir(path, self))
			continue;
		snprintf(path, sizeof(path), "%s/%s/summary.json", root,
			 names[i]);
		sum = jsonr_load(path, err, sizeof(err));
		if (!sum) {
			fprintf(stderr, "convbench: --history: %s left out: %s\n",
				names[i], err);
			h->nbad++;
			continue;
		}
		d = differs(prov, jv_get(sum, "provenance"));
		if (d != SAME) {
			h->nother += d == OTHER_BUILD;
			h->nargs += d == OTHER_ARGS;
			jsonr_free(sum);
			continue;
		}
		if (h->nruns == HISTORY_MAX) {	/* drop the oldest */
			h->nolder++;
			jsonr_free(h->sum[0]);
			free(h->name[0]);
			h->nruns--;
			memmove(h->sum, h->sum + 1, h->nruns * sizeof(*h->sum));
			memmove(h->name, h->name + 1, h->nruns * sizeof(*h->name));
			memmove(h->gmem_same, h->gmem_same + 1,
				h->nruns * sizeof(*h->gmem_same));
		}
		snprintf(gp, sizeof(gp), "%s/%s/gmem/summary.json", root,
			 names[i]);
		gsum = gprov ? jsonr_load(gp, err, sizeof(err)) : NULL;
		h->gmem_same[h->nruns] = gsum &&
			same_build(gprov, jv_get(gsum, "provenance"));
		jsonr_free(gsum);
		h->sum[h->nruns] = sum;
		h->name[h->nruns++] = names[i];
		names[i] = NULL;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (r)
		fprintf(stderr, "convbench: --history: %s\n", strerror(ENOMEM));
	return r;
}

static const struct jv *list_of(const struct history *h, size_t run,
				enum history_list list)
{
	const struct jv *g = jv_get(h->sum[run], "ratios_against_gmem");

	switch (list) {
	case HIST_INPLACE_DE:
		return jv_get(h->sum[run], "ratios_inplace_over_destructive");
	case HIST_GMEM_DE:
		return h->gmem_same[run] ? jv_get(g, "gmem_over_destructive") :
					   NULL;
	case HIST_INPLACE_GM:
		return h->gmem_same[run] ? jv_get(g, "inplace_over_gmem") :
					   NULL;
	}
	return NULL;
}

/* the per-round ratios of run's (size, direction, percentile): their log mean and its variance */
static int earlier_of(const struct history *h, size_t run,
		      enum history_list list, const struct ratio_stats *q,
		      unsigned int p, double *m, double *v)
{
	const struct jv *l = list_of(h, run, list), *rounds = NULL;
	double r[MAX_ROUNDS];
	char sz[32];
	size_t i, n;

	size_str(q->size, sz, sizeof(sz));
	for (i = 0; i < jv_len(l) && !rounds; i++) {
		const struct jv *x = jv_at(l, i);

		if (!strcmp(jv_str(jv_get(x, "size"), ""), sz) &&
		    !strcmp(jv_str(jv_get(x, "direction"), ""),
			    conv_dir_name(q->dir)))
			rounds = jv_get(jv_get(x, cs_pct_name[p]), "per_round");
	}
	n = jv_len(rounds);
	if (n < 2 || n > MAX_ROUNDS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		r[i] = jv_num(jv_get(jv_at(rounds, i), "ratio"), NAN);
	return stats_log_mean_var(r, n, m, v);
}

void history_list(const struct history *h, enum history_list list,
		  struct ratio_stats *q, size_t n)
{
	double m, v;
	unsigned int p;
	size_t i, run;

	for (i = 0; h && i < n; i++) {
		for (p = 0; p < CS_NPCT; p++) {
			struct ratio_pct *x = &q[i].pct[p];
			size_t k = 0;

			for (run = 0; run < h->nruns; run++) {
				if (earlier_of(h, run, list, &q[i], p, &m, &v))
					continue;
				x->earlier_name[k] = h->name[run];
				x->earlier[k] = exp(m);
				k++;
			}
			x->nearlier = k;
		}
	}
}

void history_json(struct jsonw *w, void *arg)
{
	const struct history *h = arg;
	size_t i;

	jsonw_obj_open(w);
	jsonw_kv_str(w, "root", h->root);
	jsonw_kv_str(w, "same", "kernel release, series, config and kernel keys, QEMU "
		     "version, accelerator, CPU model and count, convbench "
		     "arguments but --rounds, --first-round, --order-seed, "
		     "--out (for the gmem ratios also those of gmem/)");
	jsonw_key(w, "runs");
	jsonw_arr_open(w);
	for (i = 0; i < h->nruns; i++) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "run", h->name[i]);
		jsonw_kv_bool(w, "gmem_same", h->gmem_same[i]);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_kv_u64(w, "other_build_or_machine", h->nother);
	jsonw_kv_u64(w, "other_arguments", h->nargs);
	jsonw_kv_u64(w, "unreadable", h->nbad);
	jsonw_kv_u64(w, "older_not_taken", h->nolder);
	jsonw_kv_str(w, "use", "listed beside each ratio (earlier_runs) "
		     "for repeatability; no interval takes them in");
	jsonw_obj_close(w);
}

void history_free(struct history *h)
{
	size_t i;

	for (i = 0; i < h->nruns; i++) {
		free(h->name[i]);
		jsonr_free(h->sum[i]);
	}
	memset(h, 0, sizeof(*h));
}
