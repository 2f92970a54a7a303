// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the results writers: lib/jsonw (escaping, nesting,
 * commas, numbers, misuse sets the error flag), lib/csvw (RFC 4180
 * quoting) and lib/atomic_file (commit publishes, abort leaves
 * nothing, an existing file is not overwritten). Expected output is
 * compared byte for byte (the layout is Python's json.dumps(indent=2)).
 *
 * Output: TAP-like lines, then "N passed, N failed". Exit 0 pass, 1 fail.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "csvw.h"
#include "jsonw.h"
#include "tap.h"

/* a writer on a memory stream; done() returns the text (caller frees) */
struct mem {
	FILE *f;
	char *buf;
	size_t len;
	struct jsonw w;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->f = open_memstream(&m->buf, &m->len);
	jsonw_init(&m->w, m->f);
}

static char *mem_done(struct mem *m)
{
	fclose(m->f);
	return m->buf;
}

static void expect_str(const char *name, char *got, const char *want)
{
	bool ok = got && !strcmp(got, want);

	tap_result(ok, "%s", name);
	if (!ok)
		tap_diag("got:\n%s\nwant:\n%s", got ? got : "(null)", want);
	free(got);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

static void test_document(void)
{
	struct mem m;
	int ret;

	mem_open(&m);
	jsonw_obj_open(&m.w);
	jsonw_kv_str(&m.w, "name", "convbench");
	jsonw_kv_u64(&m.w, "n", 3);
	jsonw_kv_i64(&m.w, "neg", -5);
	jsonw_kv_double(&m.w, "ratio", 0.5);
	jsonw_kv_double(&m.w, "nan", NAN);
	jsonw_kv_bool(&m.w, "ok", true);
	jsonw_key(&m.w, "none");
	jsonw_null(&m.w);
	jsonw_key(&m.w, "list");
	jsonw_arr_open(&m.w);
	jsonw_u64(&m.w, 1);
	jsonw_u64(&m.w, 2);
	jsonw_obj_open(&m.w);
	jsonw_key(&m.w, "a");
	jsonw_arr_open(&m.w);
	jsonw_arr_close(&m.w);
	jsonw_obj_close(&m.w);
	jsonw_arr_close(&m.w);
	jsonw_key(&m.w, "empty");
	jsonw_obj_open(&m.w);
	jsonw_obj_close(&m.w);
	jsonw_obj_close(&m.w);
	ret = jsonw_finish(&m.w);
	tap_result(ret == 0 && !jsonw_error(&m.w), "well-formed document: finish 0");
	expect_str("nesting, commas, 2-space indent, empty {} and []", mem_done(&m),
		   "{\n"
		   "  \"name\": \"convbench\",\n"
		   "  \"n\": 3,\n"
		   "  \"neg\": -5,\n"
		   "  \"ratio\": 0.5,\n"
		   "  \"nan\": null,\n"
		   "  \"ok\": true,\n"
		   "  \"none\": null,\n"
		   "  \"list\": [\n"
		   "    1,\n"
		   "    2,\n"
		   "    {\n"
		   "      \"a\": []\n"
		   "    }\n"
		   "  ],\n"
		   "  \"empty\": {}\n"
		   "}\n");
}

static void test_escaping(void)
{
	struct mem m;

	mem_open(&m);
	jsonw_obj_open(&m.w);
	jsonw_kv_str(&m.w, "k\"ey\n",
		     "q\"b\\s\nt\tc\x01\x1f\x7f \xc3\xa9 \xc2\xb5s\b\f\r");
	jsonw_kv_str(&m.w, "null", NULL);
	jsonw_obj_close(&m.w);
	jsonw_finish(&m.w);
	expect_str("escaping: quote, backslash, control chars; UTF-8 as is",
		   mem_done(&m),
		   "{\n"
		   "  \"k\\\"ey\\n\": \"q\\\"b\\\\s\\nt\\tc\\u0001\\u001f\x7f "
		   "\xc3\xa9 \xc2\xb5s\\b\\f\\r\",\n"
		   "  \"null\": null\n"
		   "}\n");
}

static void test_numbers(void)
{
	static const double d[] = { 0.1, 1.0 / 3, 1e300, -0.0,
				    123456789012345678.0, 100, 1e-7,
				    1.7976931348623157e308 };
	struct mem m;
	unsigned int i;

	mem_open(&m);
	jsonw_arr_open(&m.w);
	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		jsonw_double(&m.w, d[i]);
	jsonw_double(&m.w, INFINITY);
	jsonw_double(&m.w, -INFINITY);
	jsonw_u64(&m.w, UINT64_MAX);
	jsonw_i64(&m.w, INT64_MIN);
	jsonw_bool(&m.w, false);
	jsonw_arr_close(&m.w);
	jsonw_finish(&m.w);
	expect_str("numbers: shortest exact doubles, inf as null, u64/i64 limits",
		   mem_done(&m),
		   "[\n  0.1,\n  0.3333333333333333,\n  1e+300,\n  -0,\n"
		   "  1.2345678901234568e+17,\n  100,\n  1e-07,\n"
		   "  1.7976931348623157e+308,\n  null,\n  null,\n"
		   "  18446744073709551615,\n  -9223372036854775808,\n"
		   "  false\n]\n");

	mem_open(&m);
	jsonw_u64(&m.w, 5);
	tap_result(jsonw_finish(&m.w) == 0, "a scalar is a document");
	expect_str("scalar document text", mem_done(&m), "5\n");
}

enum misuse {
	VALUE_WITHOUT_KEY, KEY_IN_ARRAY, WRONG_CLOSE, CLOSE_AT_TOP,
	TWO_TOP_VALUES, KEY_THEN_CLOSE, UNFINISHED, TOO_DEEP, NR_MISUSE
};

static void do_misuse(struct jsonw *w, enum misuse what)
{
	unsigned int i;

	switch (what) {
	case VALUE_WITHOUT_KEY:
		jsonw_obj_open(w);
		jsonw_u64(w, 1);
		break;
	case KEY_IN_ARRAY:
		jsonw_arr_open(w);
		jsonw_key(w, "k");
		break;
	case WRONG_CLOSE:
		jsonw_obj_open(w);
		jsonw_arr_close(w);
		break;
	case CLOSE_AT_TOP:
		jsonw_obj_close(w);
		break;
	case TWO_TOP_VALUES:
		jsonw_u64(w, 1);
		jsonw_u64(w, 2);
		break;
	case KEY_THEN_CLOSE:
		jsonw_obj_open(w);
		jsonw_key(w, "k");
		jsonw_obj_close(w);
		break;
	case UNFINISHED:
		jsonw_obj_open(w);
		break;
	case TOO_DEEP:
		for (i = 0; i <= JSONW_MAX_DEPTH; i++)
			jsonw_arr_open(w);
		break;
	default:
		break;
	}
}

static void test_misuse(void)
{
	static const char *const names[NR_MISUSE] = {
		"value without key", "key in array", "wrong close",
		"close at top", "two top-level values", "key then close",
		"unfinished", "nesting past JSONW_MAX_DEPTH",
	};
	static const char *const text[NR_MISUSE] = {
		"{", "[", "{", "", "1", "{\n  \"k\": ", "{",
		"[\n  [\n    [", /* checked by prefix only */
	};
	unsigned int i, bad = 0;
	struct mem m;
	char *out;

	for (i = 0; i < NR_MISUSE; i++) {
		mem_open(&m);
		do_misuse(&m.w, i);
		/* nothing is written after the error, not even by finish */
		jsonw_u64(&m.w, 7);
		if (jsonw_finish(&m.w) != -1 || !jsonw_error(&m.w))
			bad++, tap_diag("%s: no error", names[i]);
		out = mem_done(&m);
		if (i == TOO_DEEP ? strncmp(out, text[i], strlen(text[i])) ||
				    strchr(out, '7') :
				    strcmp(out, text[i]))
			bad++, tap_diag("%s: wrote \"%s\"", names[i], out);
		free(out);
	}
	tap_result(!bad, "misuse sets the error flag, stops output (%u cases)",
		   NR_MISUSE);

	mem_open(&m);
	for (i = 0; i < JSONW_MAX_DEPTH; i++)
		jsonw_arr_open(&m.w);
	for (i = 0; i < JSONW_MAX_DEPTH; i++)
		jsonw_arr_close(&m.w);
	tap_result(jsonw_finish(&m.w) == 0,
		   "nesting of exactly JSONW_MAX_DEPTH is fine");
	free(mem_done(&m));
}

/* ------------------------------------------------------------------ */
/* CSV                                                                 */

static void test_csv(void)
{
	static const char *const header[] = { "mode", "size", "p50 ns" };
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct csvw c;

	csvw_init(&c, f);
	csvw_row(&c, header, 3);
	csvw_str(&c, "plain");
	csvw_str(&c, "a,b");
	csvw_str(&c, "say \"hi\"");
	csvw_str(&c, "two\nlines");
	csvw_str(&c, "cr\r");
	csvw_str(&c, " lead");
	csvw_str(&c, "trail ");
	csvw_str(&c, "");
	csvw_str(&c, NULL);
	csvw_u64(&c, UINT64_MAX);
	csvw_i64(&c, -3);
	csvw_double(&c, 0.25);
	csvw_double(&c, NAN);
	csvw_end_row(&c);
	tap_result(!csvw_error(&c), "csv: no stream error");
	fclose(f);
	expect_str("csv: RFC 4180 quoting only where needed", buf,
		   "mode,size,p50 ns\n"
		   "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\","
		   "\" lead\",\"trail \",,,18446744073709551615,-3,0.25,\n");
}

/* ------------------------------------------------------------------ */
/* atomic files                                                        */

static int dir_entries(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		n += strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
	closedir(dp);
	return n;
}

static bool file_is(const char *path, const char *want)
{
	char buf[256];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return !strcmp(buf, want);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_atomic_file(void)
{
	char dir[256], out[PATH_MAX], gone[PATH_MAX], race[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	struct atomic_file af;
	struct stat st;
	int err, cwd;
	bool ok;

	/* dir[] well under PATH_MAX: the paths below cannot truncate */
	if (snprintf(dir, sizeof(dir), "%s/test_jsonw.XXXXXX",
		     tmp && *tmp ? tmp : "/tmp") >= (int)sizeof(dir))
		snprintf(dir, sizeof(dir), "/tmp/test_jsonw.XXXXXX");
	if (!mkdtemp(dir)) {
		tap_result(false, "atomic_file: mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(out, sizeof(out), "%s/out.json", dir);
	snprintf(gone, sizeof(gone), "%s/gone.json", dir);
	snprintf(race, sizeof(race), "%s/race.json", dir);

	err = atomic_file_open(out, 0, &af);
	ok = !err && dir_entries(dir) == 1 && access(out, F_OK);
	if (!err)
		fputs("hello\n", af.f);
	err = err ?: atomic_file_commit(&af);
	atomic_file_abort(&af);
	ok = ok && !err && file_is(out, "hello\n") && dir_entries(dir) == 1 &&
	     !stat(out, &st) && (st.st_mode & 07777) == 0644;
	tap_result(ok, "atomic_file: commit publishes the file (0644), no temp left");
	tap_result(atomic_file_commit(&af) == -EINVAL && dir_entries(dir) == 1,
		   "atomic_file: second commit refused, abort after commit no-op");

	err = atomic_file_open(gone, 0, &af);
	if (!err)
		fputs("partial", af.f);
	atomic_file_abort(&af);
	atomic_file_abort(&af);
	tap_result(!err && dir_entries(dir) == 1 && access(gone, F_OK),
		   "atomic_file: abort leaves nothing");

	tap_result(atomic_file_open(out, 0, &af) == -EEXIST &&
		   file_is(out, "hello\n") && dir_entries(dir) == 1,
		   "atomic_file: open refuses an existing destination");

	err = atomic_file_open(race, 0, &af);
	if (!err)
		fputs("ours\n", af.f);
	put(race, "theirs\n");	/* the name appears before commit */
	err = err ?: atomic_file_commit(&af);
	ok = err == -EEXIST && file_is(race, "theirs\n") &&
	     dir_entries(dir) == 3 && file_is(af.tmp_path, "ours\n");
	atomic_file_abort(&af);
	tap_result(ok && dir_entries(dir) == 2,
		   "atomic_file: commit never overwrites, keeps the temp until abort");

	err = atomic_file_open(out, ATOMIC_FILE_REPLACE, &af);
	if (!err)
		fputs("new\n", af.f);
	err = err ?: atomic_file_commit(&af);
	tap_result(!err && file_is(out, "new\n") && dir_entries(dir) == 2,
		   "atomic_file: ATOMIC_FILE_REPLACE replaces");

	/* a bare file name: temp and rename in the current directory */
	cwd = open(".", O_RDONLY | O_DIRECTORY);
	ok = cwd >= 0 && !chdir(dir);
	err = ok ? atomic_file_open("rel.csv", 0, &af) : -1;
	if (!err)
		fputs("a,b\n", af.f);
	err = err ?: atomic_file_commit(&af);
	ok = ok && !err && file_is("rel.csv", "a,b\n") && dir_entries(".") == 3;
	if (cwd >= 0) {
		ok = !fchdir(cwd) && ok;
		close(cwd);
	}
	tap_result(ok, "atomic_file: bare file name in the current directory");

	unlink(out);
	unlink(race);
	snprintf(gone, sizeof(gone), "%s/rel.csv", dir);
	unlink(gone);
	tap_result(!rmdir(dir), "atomic_file: test directory cleaned up");
}

int main(void)
{
	test_document();
	test_escaping();
	test_numbers();
	test_misuse();
	test_csv();
	test_atomic_file();
	return tap_finish(false);
}
