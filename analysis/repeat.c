// SPDX-License-Identifier: GPL-2.0
/* Repeatability across runs of one identity: see repeat.h */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "identity.h"
#include "repeat.h"
#include "text.h"
#include "units.h"

#define REPEAT_MAX	64	/* runs of the identity taken, newest */
#define REPEAT_SHOWN	3	/* earlier runs with a column of their own */

/* lists 3..5: the same ratios less the emulator's fixed costs */
#define NLISTS	6
static const char *const list_label[NLISTS] = {
	"in/de", "gm/de", "in/gm", "in/de -fixed", "gm/de -fixed",
	"in/gm -fixed",
};

/* the p50 of ratio list l (in/de, gm/de, in/gm) at (size, d) in r, or NULL */
static const struct jv *p50_of(const struct run *r, unsigned int l,
			       uint64_t size, enum conv_dir d)
{
	return jv_get(run_ratio_k(r, l % 3, size, d),
		      l < 3 ? "p50" : "p50_exit_normalized");
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct peers {
	struct run run[REPEAT_MAX];	/* oldest first */
	char *name[REPEAT_MAX];
	size_t n;
	size_t nother, nbad, nolder;
	char other[8][200];		/* the first few: name and what differs */
};

static void peers_free(struct peers *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		run_free(&p->run[i]);
		free(p->name[i]);
	}
}

static int peers_load(struct peers *p, const struct run *r,
		      const struct run_ident *me, const char *root, char *err,
		      size_t errlen)
{
	char self[PATH_MAX], path[PATH_MAX], other[PATH_MAX + 16], e[256];
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	struct run_ident id;
	DIR *d;
	int k;

	memset(p, 0, sizeof(*p));
	if (!realpath(r->dir, self))
		snprintf(self, sizeof(self), "%s", r->dir);
	d = opendir(root);
	if (!d) {
		snprintf(err, errlen, "--repeat=%s: %s", root, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **m = realloc(names, (cap = cap ? 2 * cap : 64) *
					   sizeof(*names));

			if (!m)
				break;
			names = m;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_name);
	/* newest last: walk from the end, keep REPEAT_MAX */
	for (i = n; i-- > 0;) {
		struct run o;

		snprintf(path, sizeof(path), "%s/%s", root, names[i]);
		if (!realpath(path, other) || !strcmp(other, self))
			continue;
		snprintf(other, sizeof(other), "%s/summary.json", path);
		if (access(other, R_OK))
			continue;	/* not a run */
		if (run_load(&o, path, e, sizeof(e))) {
			p->nbad++;
			continue;
		}
		memset(&id, 0, sizeof(id));
		if (run_ident_load(path, &o, &id))
			snprintf(id.v[0], sizeof(id.v[0]), "(no meta.json)");
		k = run_ident_diff(me, &id, 0);
		if (k >= 0) {
			if (p->nother < 8)
				snprintf(p->other[p->nother],
					 sizeof(p->other[0]), "%s: %s %s, not %s",
					 names[i], run_ident_label(k), id.v[k],
					 me->v[k]);
			p->nother++;
			run_free(&o);
			continue;
		}
		if (p->n == REPEAT_MAX) {
			p->nolder++;
			run_free(&o);
			continue;
		}
		p->run[p->n] = o;
		p->name[p->n++] = strdup(names[i]);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	/* oldest first */
	for (i = 0; i < p->n / 2; i++) {
		struct run t = p->run[i];
		char *s = p->name[i];

		p->run[i] = p->run[p->n - 1 - i];
		p->run[p->n - 1 - i] = t;
		p->name[i] = p->name[p->n - 1 - i];
		p->name[p->n - 1 - i] = s;
	}
	return 0;
}

/*
 * One ratio over this run and the peers: v[i] of run i (0: this run,
 * then the peers newest first; NaN where a run lacks it), the spread
 * max/min - 1 of the values there are, whether all lie within the
 * margin of their geometric mean, and how often one run's value lies
 * in another's CI. false: this run lacks the ratio.
 */
struct rep_row {
	unsigned int n;			/* runs with the ratio */
	double v[REPEAT_MAX + 1];
	double spread;
	bool within;
	unsigned int in, pairs;
};

static bool row_stats(const struct run *r, const struct peers *p,
		      unsigned int l, uint64_t size, enum conv_dir dir,
		      double margin, struct rep_row *o)
{
	double lo[REPEAT_MAX + 1], hi[REPEAT_MAX + 1];
	double mn = INFINITY, mx = 0, glog = 0;
	unsigned int i, j;

	memset(o, 0, sizeof(*o));
	o->within = true;
	for (i = 0; i <= p->n; i++) {
		const struct jv *x = p50_of(i ? &p->run[p->n - i] : r, l,
					    size, dir);
		double x0 = jv_num(jv_get(x, "ratio"), NAN);

		o->v[i] = NAN;
		lo[i] = hi[i] = NAN;
		if (!(x0 > 0)) {
			if (!i)
				return false;
			continue;
		}
		o->v[i] = x0;
		lo[i] = jv_num(jv_get(x, "ci95_lo"), NAN);
		hi[i] = jv_num(jv_get(x, "ci95_hi"), NAN);
		mn = fmin(mn, x0);
		mx = fmax(mx, x0);
		glog += log(x0);
		o->n++;
	}
	glog /= o->n;
	o->spread = 100 * (mx / mn - 1);
	for (i = 0; i <= p->n; i++)
		o->within &= isnan(o->v[i]) ||
			     fabs(o->v[i] / exp(glog) - 1) <= margin / 100;
	for (i = 0; i <= p->n; i++)
		for (j = 0; j <= p->n; j++)
			if (i != j && !isnan(o->v[i]) && !isnan(lo[j])) {
				o->pairs++;
				o->in += o->v[i] >= lo[j] && o->v[i] <= hi[j];
			}
	return true;
}

/* one ratio's row over this run (index 0) and the peers */
static void row(FILE *f, const struct run *r, const struct peers *p,
		unsigned int l, uint64_t size, enum conv_dir dir,
		double margin, unsigned int *nrows, unsigned int *nwithin)
{
	struct rep_row o;
	unsigned int i, shown;
	char buf[200], label[48], sz[32];
	int at;

	if (!row_stats(r, p, l, size, dir, margin, &o))
		return;
	snprintf(label, sizeof(label), "%s %s %s", list_label[l],
		 size_str(size, sz, sizeof(sz)), conv_dir_names[dir]);
	at = snprintf(buf, sizeof(buf), "  %-20s", label);
	/* the values there are, this run's first */
	for (i = 0, shown = 0; i <= p->n && shown < REPEAT_SHOWN + 1; i++) {
		if (isnan(o.v[i]))
			continue;
		at += snprintf(buf + at, sizeof(buf) - at, " %6.3f", o.v[i]);
		shown++;
	}
	for (; shown < REPEAT_SHOWN + 1; shown++)
		at += snprintf(buf + at, sizeof(buf) - at, "       ");
	if (o.n > 1)
		snprintf(buf + at, sizeof(buf) - at, " %5.1f%% %-3s %3u/%u",
			 o.spread, o.within ? "yes" : "no", o.in, o.pairs);
	text_line(f, "%s", buf);
	(*nrows)++;
	*nwithin += o.n > 1 && o.within;
}

/* a run's column label: the time of its name (20261205-181231-...) */
static const char *run_label(const char *name, char *buf, size_t len)
{
	const char *t = strchr(name, '-');

	snprintf(buf, len, "%.6s", t ? t + 1 : name);
	return buf;
}

int repeat_markdown(FILE *f, const struct run *r, const char *root,
		    double margin, char *err, size_t errlen)
{
	struct peers *p = calloc(1, sizeof(*p));
	unsigned int l, d;
	struct rep_row o;
	struct run_ident me;
	char lab[32], sz[32];
	const char *self;
	size_t i, k;
	int e;

	if (!p)
		return -ENOMEM;
	if (run_ident_load(r->dir, r, &me)) {
		snprintf(err, errlen, "%s: no meta.json: its identity on the "
			 "host is unknown", r->dir);
		free(p);
		return -EINVAL;
	}
	e = peers_load(p, r, &me, root, err, errlen);
	if (e) {
		free(p);
		return e;
	}
	self = strrchr(r->dir, '/') && strrchr(r->dir, '/')[1] ?
	       strrchr(r->dir, '/') + 1 : r->dir;
	/* oldest first, this run last */
	fprintf(f, "| ratio |");
	for (i = 0; i < p->n; i++)
		fprintf(f, " %s |", run_label(p->name[i], lab, sizeof(lab)));
	fprintf(f, " %s | spread | within +-%.0f%% | in CIs |\n| --- |",
		run_label(self, lab, sizeof(lab)), margin);
	for (i = 0; i <= p->n; i++)
		fprintf(f, " ---: |");
	fprintf(f, " ---: | --- | ---: |\n");
	for (l = 0; l < NLISTS; l++)
		for (k = 0; k < r->nsizes; k++)
			for (d = 0; d < DIR_NR; d++) {
				if (!row_stats(r, p, l, r->sizes[k], d, margin,
					       &o))
					continue;
				fprintf(f, "| %s %s %s |", list_label[l],
					size_str(r->sizes[k], sz, sizeof(sz)),
					conv_dir_names[d]);
				/* v[]: this run, then the newest peer first */
				for (i = p->n + 1; i-- > 0;) {
					if (isnan(o.v[i]))
						fprintf(f, " - |");
					else
						fprintf(f, " %.3f |", o.v[i]);
				}
				if (o.n > 1)
					fprintf(f, " %.1f%% | %s | %u/%u |\n",
						o.spread, o.within ? "yes" : "no",
						o.in, o.pairs);
				else
					fprintf(f, " - | - | - |\n");
			}
	peers_free(p);
	free(p);
	return 0;
}

int repeat_section(FILE *f, const struct run *r, const char *root,
		   double margin, char *err, size_t errlen)
{
	struct run_ident me;
	struct peers *p = calloc(1, sizeof(*p));
	unsigned int l, d, nrows = 0, nwithin = 0;
	char buf[8192];
	size_t i, k;
	int e;

	if (!p)
		return -ENOMEM;
	if (run_ident_load(r->dir, r, &me)) {
		/* a run without meta.json (convbench alone): nothing to match */
		fputc('\n', f);
		text_line(f, "Repeatability");
		text_wrap(f, "", "", "this run has no meta.json (make bench "
			  "writes it): its identity on the host is unknown, so "
			  "no run is compared with it");
		free(p);
		return 0;
	}
	e = peers_load(p, r, &me, root, err, errlen);
	if (e) {
		free(p);
		return e;
	}
	fputc('\n', f);
	text_line(f, "Repeatability (apart: no CI above takes other runs in)");
	snprintf(buf, sizeof(buf), "runs in %s of this run's identity: "
		 "host CPU %s x %s (virtualised: %s), host kernel %s, %s, "
		 "%s, CPU %s, convbench %s, kernel %s, gmem kernel %s, %s "
		 "rounds of %s, sizes %s. Margin: +-%.0f%% of the runs' "
		 "geometric mean. Columns: this run, then the newest "
		 "earlier ones; spread max/min - 1 over all of them; 'in "
		 "CIs': how often a run's ratio lies in another run's 95%% "
		 "CI", root, me.v[0], me.v[1], me.v[2], me.v[3], me.v[4],
		 me.v[5], me.v[6], me.v[9], me.v[10], me.v[RUN_ID_GMEM],
		 me.v[11], me.v[12], me.v[RUN_ID_SIZES], margin);
	text_wrap(f, "", "  ", buf);
	if (!p->n) {
		text_line(f, "  no earlier run of this identity");
	} else {
		for (i = 0; i < p->n && i < REPEAT_SHOWN; i++)
			text_line(f, "  e%zu: %s", i + 1, p->name[p->n - 1 - i]);
		if (p->n > REPEAT_SHOWN)
			text_line(f, "  and %zu older (in the spread and the "
				  "CI count, not shown)", p->n - REPEAT_SHOWN);
		snprintf(buf, sizeof(buf), "  %-20s %6s", "p50 ratio", "this");
		for (i = 0; i < REPEAT_SHOWN; i++) {
			char e[8] = "";

			if (i < p->n)
				snprintf(e, sizeof(e), "e%zu", i + 1);
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 " %6s", e);
		}
		text_line(f, "%s spread +-%.0f%% in CIs", buf, margin);
		for (l = 0; l < 3; l++)
			for (k = 0; k < r->nsizes; k++)
				for (d = 0; d < DIR_NR; d++)
					row(f, r, p, l, r->sizes[k], d, margin,
					    &nrows, &nwithin);
		text_line(f, "  %u of %u ratios: every run within +-%.0f%%",
			  nwithin, nrows, margin);
	}
	if (p->nother) {
		snprintf(buf, sizeof(buf), "%zu run%s of another identity, "
			 "not compared%s", p->nother, p->nother == 1 ? "" : "s",
			 p->nother > 8 ? " (the newest 8 named)" : ":");
		text_wrap(f, "", "  ", buf);
		for (i = 0; i < p->nother && i < 8; i++)
			text_wrap(f, "  ", "    ", p->other[i]);
	}
	if (p->nbad)
		text_line(f, "%zu run%s with an unreadable summary.json", p->nbad,
			  p->nbad == 1 ? "" : "s");
	peers_free(p);
	free(p);
	return 0;
}
