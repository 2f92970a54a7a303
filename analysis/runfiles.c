// SPDX-License-Identifier: GPL-2.0
/*
 * A convbench run folder's files, read for convreport (see runfiles.h).
 * Lines that do not parse are counted and skipped: a report of what is
 * readable beats none.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convtrace.h"
#include "runfiles.h"

#define MAX_FIELDS	32

const char *const run_mode_name[RUN_NR_MODES] = { "destructive", "inplace",
						   "gmem" };
const char *const run_dir_name[RUN_NR_DIRS] = { "to-shared", "to-private" };

/* grow *p (n elements of size sz, capacity *cap) to hold one more */
static int grow(void *p, size_t n, size_t *cap, size_t sz)
{
	void **pp = p, *q;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 16;
	q = realloc(*pp, c * sz);
	if (!q)
		return -ENOMEM;
	*pp = q;
	*cap = c;
	return 0;
}

/*
 * Split a CSV line in place: RFC 4180 quotes ("" inside), no newlines
 * inside fields (convbench and convtrace write none). Returns the number
 * of fields.
 */
static int split_csv(char *line, char **f, int max)
{
	char *r = line, *w;
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		f[n++] = w = r;
		if (*r == '"') {
			r++;
			while (*r) {
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
			while (*r && *r != ',')
				r++;
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		if (*r != ',') {
			*w = '\0';
			break;
		}
		r++;
		*w = '\0';
	}
	return n;
}

static int col_of(char **f, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i], name))
			return i;
	return -1;
}

static int mode_of(const char *s)
{
	int m;

	for (m = 0; m < RUN_NR_MODES; m++)
		if (!strcmp(s, run_mode_name[m]))
			return m;
	return -1;
}

static int dir_of(const char *s)
{
	int d;

	for (d = 0; d < RUN_NR_DIRS; d++)
		if (!strcmp(s, run_dir_name[d]))
			return d;
	return -1;
}

/* "4096", "4K", "2M", "1G" -> bytes; 0 if not a size */
static uint64_t size_of(const char *s)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return 0;
	switch (*end) {
	case '\0':
		return v;
	case 'K': case 'k':
		v <<= 10;
		break;
	case 'M': case 'm':
		v <<= 20;
		break;
	case 'G': case 'g':
		v <<= 30;
		break;
	default:
		return 0;
	}
	return end[1] ? 0 : v;
}

static bool num_of(const char *s, double *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return !errno && !*end;
}

struct run_cell *run_find_cell(struct run_samples *s, enum run_mode m,
			       uint64_t size, enum run_dir d)
{
	size_t i;

	for (i = 0; i < s->ncells; i++)
		if (s->cells[i].mode == m && s->cells[i].size == size &&
		    s->cells[i].dir == d)
			return &s->cells[i];
	return NULL;
}

static int add_sample(struct run_samples *s, enum run_mode m, uint64_t size,
		      enum run_dir d, double v)
{
	struct run_cell *c = run_find_cell(s, m, size, d);

	if (!c) {
		if (grow(&s->cells, s->ncells, &s->cap, sizeof(*s->cells)))
			return -ENOMEM;
		c = &s->cells[s->ncells++];
		memset(c, 0, sizeof(*c));
		c->mode = m;
		c->size = size;
		c->dir = d;
	}
	if (grow(&c->total_ns, c->n, &c->cap, sizeof(double)))
		return -ENOMEM;
	c->total_ns[c->n++] = v;
	return 0;
}

static void note_setting(char *dst, size_t len, const char *v)
{
	if (!dst[0])
		snprintf(dst, len, "%s", v);
	else if (strcmp(dst, v))
		snprintf(dst, len, "mixed");
}

int run_read_samples(const char *path, struct run_samples *s,
		     char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	return run_add_samples(path, s, err, errlen);
}

int run_add_samples(const char *path, struct run_samples *s,
		    char *err, size_t errlen)
{
	int c_mode, c_size, c_dir, c_total, c_trig, c_pres, c_vcpu, c_rt, c_host;
	int n;
	char *line = NULL, *f[MAX_FIELDS];
	size_t cap = 0;
	int ret = 0;
	FILE *in;

	in = fopen(path, "r");
	if (!in) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (getline(&line, &cap, in) < 0) {
		snprintf(err, errlen, "%s: empty file", path);
		ret = -EINVAL;
		goto out;
	}
	n = split_csv(line, f, MAX_FIELDS);
	c_mode = col_of(f, n, "mode");
	c_size = col_of(f, n, "size");
	c_dir = col_of(f, n, "direction");
	c_total = col_of(f, n, "total_ns");
	c_trig = col_of(f, n, "trigger");
	c_pres = col_of(f, n, "preserve");
	c_vcpu = col_of(f, n, "vcpu");
	c_rt = col_of(f, n, "exit_rt_ns");
	c_host = col_of(f, n, "host_ns");
	if (c_mode < 0 || c_size < 0 || c_dir < 0 || c_total < 0) {
		snprintf(err, errlen, "%s: header lacks mode, size, direction "
			 "or total_ns", path);
		ret = -EINVAL;
		goto out;
	}
	while (getline(&line, &cap, in) >= 0) {
		int m, d;
		uint64_t size;
		double v, vcpu, rt, host;

		if (!line[strspn(line, " \t\r\n")])
			continue;
		s->rows++;
		n = split_csv(line, f, MAX_FIELDS);
		if (n <= c_mode || n <= c_size || n <= c_dir || n <= c_total ||
		    (m = mode_of(f[c_mode])) < 0 || (d = dir_of(f[c_dir])) < 0 ||
		    !(size = size_of(f[c_size])) || !num_of(f[c_total], &v) ||
		    v != v) {
			s->bad_rows++;
			continue;
		}
		if (add_sample(s, m, size, d, v)) {
			snprintf(err, errlen, "%s: out of memory", path);
			ret = -ENOMEM;
			goto out;
		}
		if (c_trig >= 0 && c_trig < n)
			note_setting(s->trigger, sizeof(s->trigger), f[c_trig]);
		if (c_pres >= 0 && c_pres < n)
			note_setting(s->preserve, sizeof(s->preserve), f[c_pres]);
		if (c_vcpu >= 0 && c_vcpu < n && num_of(f[c_vcpu], &vcpu) &&
		    vcpu >= 0 && vcpu + 1 > s->vcpus)
			s->vcpus = (unsigned int)vcpu + 1;
		/* 2 % slack: the handler's own timestamps are inside */
		if (c_rt >= 0 && c_host >= 0 && c_rt < n && c_host < n &&
		    num_of(f[c_rt], &rt) && num_of(f[c_host], &host) &&
		    rt > 0) {
			s->clock_rows++;
			s->clock_skew += host > rt * 1.02;
		}
	}
	if (ferror(in)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: read error", path);
	}
out:
	free(line);
	fclose(in);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

size_t run_sizes(const struct run_samples *s, uint64_t *sizes, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < s->ncells; i++) {
		for (j = 0; j < n && sizes[j] != s->cells[i].size; j++)
			;
		if (j == n && n < max)
			sizes[n++] = s->cells[i].size;
	}
	qsort(sizes, n, sizeof(*sizes), cmp_u64);
	return n;
}

void run_free_samples(struct run_samples *s)
{
	size_t i;

	for (i = 0; i < s->ncells; i++)
		free(s->cells[i].total_ns);
	free(s->cells);
	memset(s, 0, sizeof(*s));
}

/* ------------------------------------------------------------------ */
/* JSON strings (provenance) and hyperfine's numbers                  */

char *run_slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *in, *mem;
	int c;

	in = fopen(path, "r");
	if (!in)
		return NULL;
	mem = open_memstream(&buf, &len);
	if (!mem) {
		fclose(in);
		return NULL;
	}
	while ((c = getc(in)) != EOF)
		putc(c, mem);
	fclose(in);
	if (fclose(mem)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* the value after "key": (past blanks), or NULL */
static const char *json_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;

	while ((p = strchr(p, '"'))) {
		if (!strncmp(p + 1, key, kl) && p[kl + 1] == '"') {
			const char *q = p + kl + 2;

			q += strspn(q, " \t\r\n");
			if (*q == ':')
				return q + 1 + strspn(q + 1, " \t\r\n");
		}
		/* skip this string, escapes included */
		for (p++; *p && *p != '"'; p++)
			if (*p == '\\' && p[1])
				p++;
		if (!*p)
			return NULL;
		p++;
	}
	return NULL;
}

/*
 * A JSON string at p into buf (ASCII: other characters become '?');
 * returns what follows its closing quote, or NULL.
 */
static const char *json_string(const char *p, char *buf, size_t len)
{
	size_t n = 0;

	if (*p != '"' || !len)
		return NULL;
	for (p++; *p && *p != '"'; p++) {
		char c = *p;

		if (c == '\\') {
			p++;
			switch (*p) {
			case 'n': case 't': case 'r': c = ' '; break;
			case 'u': c = '?'; p += strnlen(p + 1, 4); break;
			case '\0': p--; continue;
			default: c = *p; break;
			}
		}
		if ((unsigned char)c < 0x20 || (unsigned char)c > 0x7e)
			c = '?';
		if (n + 1 < len)
			buf[n++] = c;
	}
	buf[n] = '\0';
	return *p == '"' ? p + 1 : NULL;
}

bool run_json_str(const char *text, const char *key, char *buf, size_t len)
{
	const char *v = text ? json_value(text, key) : NULL;

	return v && json_string(v, buf, len) != NULL;
}

size_t run_read_hyperfine(const char *path, struct run_hyperfine *r,
			  size_t max)
{
	char *text = run_slurp(path), *p;
	size_t n = 0;

	if (!text)
		return 0;
	p = text;
	while (n < max && (p = strstr(p, "\"command\""))) {
		const char *v = json_value(p, "command"), *next, *t, *end;
		char *num_end;
		struct run_hyperfine *h = &r[n];

		memset(h, 0, sizeof(*h));
		if (!v || !(v = json_string(v, h->command, sizeof(h->command))))
			break;
		p = (char *)v;
		/* this result's fields end where the next command starts */
		next = strstr(p, "\"command\"");
		v = json_value(p, "mean");
		if (!v || (next && v > next))
			break;
		h->mean_s = strtod(v, &num_end);
		if (num_end == v)	/* truncated file */
			break;
		v = json_value(p, "stddev");
		h->stddev_s = v && (!next || v < next) ? strtod(v, NULL) : 0;
		v = json_value(p, "times");
		if (v && *v == '[' && (!next || v < next) &&
		    (end = strchr(v, ']'))) {
			t = v + 1 + strspn(v + 1, " \t\r\n");
			for (h->runs = t < end; t < end; t++)
				h->runs += *t == ',';
		}
		n++;
	}
	free(text);
	return n;
}

/* ------------------------------------------------------------------ */
/* trace.csv                                                          */

struct run_trace_hist *run_trace_find(struct run_trace *t, const char *probe,
				      unsigned int m, uint64_t size)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].mode == m && t->rows[i].size == size &&
		    !strcmp(t->rows[i].probe, probe))
			return &t->rows[i];
	return NULL;
}

const char *run_trace_missing(const struct run_trace *t, const char *probe)
{
	size_t i;

	for (i = 0; i < t->nmissing; i++)
		if (!strcmp(t->missing[i][0], probe))
			return t->missing[i][1];
	return NULL;
}

/* "destructive 4K to-shared": mode (or -1) and size (or 0) */
static int parse_context(const char *name, uint64_t *size)
{
	char buf[256], *tok, *save = NULL;
	int mode = -1, m;
	uint64_t sz;

	*size = 0;
	snprintf(buf, sizeof(buf), "%s", name);
	for (tok = strtok_r(buf, " /:,;=\t", &save); tok;
	     tok = strtok_r(NULL, " /:,;=\t", &save)) {
		m = mode_of(tok);
		if (m >= 0)
			mode = m;
		else if ((sz = size_of(tok)) && !(sz % 4096))
			*size = sz;
	}
	return mode;
}

static bool wanted(const char *probe, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(probe, *names))
			return true;
	return false;
}

struct seen_ctx {
	char probe[64];
	unsigned long ctx;
	double count, sum;
};

int run_read_trace(const char *path, const char *const *names,
		   struct run_trace *t, char *err, size_t errlen)
{
	static uint64_t one[HIST_NR_BUCKETS(CT_HIST_SUB_BITS)];
	struct seen_ctx *seen = NULL;
	size_t nseen = 0, seen_cap = 0, cap = 0, miss_cap = 0, i;
	char *line = NULL, *f[MAX_FIELDS];
	int ret = 0, n;
	FILE *in;

	memset(t, 0, sizeof(*t));
	in = fopen(path, "r");
	if (!in) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	while (getline(&line, &cap, in) >= 0) {
		struct run_trace_hist *h;
		double count, sum, lo, cnt;
		unsigned long ctx;
		uint64_t size;
		int mode;

		if (!strncmp(line, "# missing,", 10)) {
			n = split_csv(line + 10, f, MAX_FIELDS);
			if (n < 1 || grow(&t->missing, t->nmissing, &miss_cap,
					  sizeof(*t->missing)))
				continue;
			snprintf(t->missing[t->nmissing][0], 96, "%s", f[0]);
			snprintf(t->missing[t->nmissing][1], 96, "%s",
				 n > 1 ? f[1] : "?");
			t->nmissing++;
			continue;
		}
		n = split_csv(line, f, MAX_FIELDS);
		if (n < 9 || !strcmp(f[0], "probe") || !wanted(f[0], names))
			continue;
		if (!num_of(f[4], &count) || !num_of(f[5], &sum))
			continue;
		ctx = strtoul(f[2], NULL, 10);
		mode = parse_context(f[3], &size);
		if (mode < 0)
			mode = RUN_MODE_UNNAMED;
		h = run_trace_find(t, f[0], mode, size);
		if (!h) {
			if (grow(&t->rows, t->nrows, &t->cap, sizeof(*t->rows))) {
				ret = -ENOMEM;
				break;
			}
			h = &t->rows[t->nrows++];
			memset(h, 0, sizeof(*h));
			snprintf(h->probe, sizeof(h->probe), "%s", f[0]);
			h->mode = mode;
			h->size = size;
			hist_init(&h->h, CT_HIST_SUB_BITS);
		}
		/*
		 * count and sum repeat on every bucket line of a context
		 * (a differing pair would be another context: count it too)
		 */
		for (i = 0; i < nseen; i++)
			if (seen[i].ctx == ctx && seen[i].count == count &&
			    seen[i].sum == sum && !strcmp(seen[i].probe, f[0]))
				break;
		if (i == nseen) {
			if (grow(&seen, nseen, &seen_cap, sizeof(*seen))) {
				ret = -ENOMEM;
				break;
			}
			snprintf(seen[nseen].probe, sizeof(seen[0].probe), "%s",
				 f[0]);
			seen[nseen].count = count;
			seen[nseen].sum = sum;
			seen[nseen++].ctx = ctx;
			h->count += (uint64_t)count;
			h->sum_ns += sum;
		}
		if (num_of(f[6], &lo) && num_of(f[8], &cnt) && lo >= 0 &&
		    cnt > 0) {
			unsigned int b = hist_bucket_idx_clamp((uint64_t)lo,
				CT_HIST_SUB_BITS, h->h.nr_buckets);

			one[b] = (uint64_t)cnt;
			hist_add_buckets(&h->h, one, b + 1);
			one[b] = 0;
		}
	}
	if (ret)
		snprintf(err, errlen, "%s: out of memory", path);
	free(seen);
	free(line);
	fclose(in);
	return ret;
}

void run_free_trace(struct run_trace *t)
{
	free(t->rows);
	free(t->missing);
	memset(t, 0, sizeof(*t));
}
