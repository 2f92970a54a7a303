// SPDX-License-Identifier: GPL-2.0
/* CSV writer with RFC 4180 quoting (see csvw.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "csvw.h"
#include "jsonw.h"	/* jsonw_fmt_double() */

void csvw_init(struct csvw *c, FILE *f)
{
	c->f = f;
	c->col = 0;
}

static void field_sep(struct csvw *c)
{
	if (c->col++)
		fputc(',', c->f);
}

static bool needs_quotes(const char *s)
{
	size_t n = strlen(s);

	if (strpbrk(s, ",\"\r\n"))
		return true;
	return n && (s[0] == ' ' || s[0] == '\t' ||
		     s[n - 1] == ' ' || s[n - 1] == '\t');
}

void csvw_str(struct csvw *c, const char *s)
{
	field_sep(c);
	if (!s)
		return;
	if (!needs_quotes(s)) {
		fputs(s, c->f);
		return;
	}
	fputc('"', c->f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', c->f);
		fputc(*s, c->f);
	}
	fputc('"', c->f);
}

void csvw_u64(struct csvw *c, uint64_t v)
{
	field_sep(c);
	fprintf(c->f, "%" PRIu64, v);
}

void csvw_i64(struct csvw *c, int64_t v)
{
	field_sep(c);
	fprintf(c->f, "%" PRId64, v);
}

void csvw_double(struct csvw *c, double v)
{
	char buf[JSONW_DOUBLE_LEN];

	field_sep(c);
	if (!isfinite(v))
		return;
	jsonw_fmt_double(buf, sizeof(buf), v);
	fputs(buf, c->f);
}

void csvw_end_row(struct csvw *c)
{
	fputc('\n', c->f);
	c->col = 0;
}

void csvw_row(struct csvw *c, const char *const *fields, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		csvw_str(c, fields[i]);
	csvw_end_row(c);
}

bool csvw_error(const struct csvw *c)
{
	return ferror(c->f);
}
