// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming JSON writer (see jsonw.h). Output matches Python's
 * json.dumps(obj, indent=2): "key": value, empty containers as {} and
 * [], each member on its own line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#include "jsonw.h"

void jsonw_init(struct jsonw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
}

static bool fail(struct jsonw *w)
{
	w->error = true;
	return false;
}

static void indent(struct jsonw *w)
{
	unsigned int i;

	fputc('\n', w->f);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/* comma and line break before a member of the innermost container */
static void member_sep(struct jsonw *w)
{
	if (w->non_empty[w->depth - 1])
		fputc(',', w->f);
	w->non_empty[w->depth - 1] = true;
	indent(w);
}

/* may a value come here? places the array separator if so */
static bool begin_value(struct jsonw *w)
{
	if (w->error)
		return false;
	if (!w->depth)
		return w->done ? fail(w) : true;
	if (w->is_obj[w->depth - 1]) {
		if (!w->have_key)
			return fail(w);
		w->have_key = false;	/* jsonw_key() placed the separator */
		return true;
	}
	member_sep(w);
	return true;
}

static void end_value(struct jsonw *w)
{
	if (!w->depth)
		w->done = true;
}

void jsonw_write_escaped(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			/* bytes >= 0x80 are UTF-8 sequences: pass them on */
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void open_container(struct jsonw *w, bool is_obj)
{
	if (w->error)
		return;
	if (w->depth >= JSONW_MAX_DEPTH) {
		fail(w);
		return;
	}
	if (!begin_value(w))
		return;
	fputc(is_obj ? '{' : '[', w->f);
	w->is_obj[w->depth] = is_obj;
	w->non_empty[w->depth] = false;
	w->depth++;
}

static void close_container(struct jsonw *w, bool is_obj)
{
	if (w->error)
		return;
	if (!w->depth || w->is_obj[w->depth - 1] != is_obj || w->have_key) {
		fail(w);
		return;
	}
	w->depth--;
	if (w->non_empty[w->depth])
		indent(w);
	fputc(is_obj ? '}' : ']', w->f);
	end_value(w);
}

void jsonw_obj_open(struct jsonw *w)
{
	open_container(w, true);
}

void jsonw_obj_close(struct jsonw *w)
{
	close_container(w, true);
}

void jsonw_arr_open(struct jsonw *w)
{
	open_container(w, false);
}

void jsonw_arr_close(struct jsonw *w)
{
	close_container(w, false);
}

void jsonw_key(struct jsonw *w, const char *key)
{
	if (w->error)
		return;
	if (!w->depth || !w->is_obj[w->depth - 1] || w->have_key || !key) {
		fail(w);
		return;
	}
	member_sep(w);
	jsonw_write_escaped(w->f, key);
	fputs(": ", w->f);
	w->have_key = true;
}

void jsonw_str(struct jsonw *w, const char *s)
{
	if (!begin_value(w))
		return;
	if (s)
		jsonw_write_escaped(w->f, s);
	else
		fputs("null", w->f);
	end_value(w);
}

void jsonw_u64(struct jsonw *w, uint64_t v)
{
	if (!begin_value(w))
		return;
	fprintf(w->f, "%" PRIu64, v);
	end_value(w);
}

void jsonw_i64(struct jsonw *w, int64_t v)
{
	if (!begin_value(w))
		return;
	fprintf(w->f, "%" PRId64, v);
	end_value(w);
}

int jsonw_fmt_double(char *buf, size_t size, double v)
{
	char *c;
	int prec;

	/* shortest of 15..17 significant digits that reads back exactly */
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, size, "%.17g", v);
	/* a locale with a decimal comma must not break the file */
	for (c = buf; *c; c++)
		if (*c == ',')
			*c = '.';
	return (int)strlen(buf);
}

void jsonw_double(struct jsonw *w, double v)
{
	char buf[JSONW_DOUBLE_LEN];

	if (!begin_value(w))
		return;
	if (isfinite(v)) {
		jsonw_fmt_double(buf, sizeof(buf), v);
		fputs(buf, w->f);
	} else {
		fputs("null", w->f);
	}
	end_value(w);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	if (!begin_value(w))
		return;
	fputs(v ? "true" : "false", w->f);
	end_value(w);
}

void jsonw_null(struct jsonw *w)
{
	if (!begin_value(w))
		return;
	fputs("null", w->f);
	end_value(w);
}

void jsonw_kv_str(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	jsonw_str(w, s);
}

void jsonw_kv_u64(struct jsonw *w, const char *key, uint64_t v)
{
	jsonw_key(w, key);
	jsonw_u64(w, v);
}

void jsonw_kv_i64(struct jsonw *w, const char *key, int64_t v)
{
	jsonw_key(w, key);
	jsonw_i64(w, v);
}

void jsonw_kv_double(struct jsonw *w, const char *key, double v)
{
	jsonw_key(w, key);
	jsonw_double(w, v);
}

void jsonw_kv_bool(struct jsonw *w, const char *key, bool v)
{
	jsonw_key(w, key);
	jsonw_bool(w, v);
}

bool jsonw_error(const struct jsonw *w)
{
	return w->error || ferror(w->f);
}

int jsonw_finish(struct jsonw *w)
{
	if (w->error || w->depth || w->have_key || !w->done) {
		w->error = true;
		return -1;
	}
	fputc('\n', w->f);
	return ferror(w->f) ? -1 : 0;
}
