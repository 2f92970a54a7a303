/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP-like result lines for convbench tests:
 *   ok N - name / not ok N - name / ok N - name # SKIP reason
 * and the exit code convention 0 pass, 1 fail, 4 skip (kselftest).
 */
#ifndef CONVBENCH_TAP_H
#define CONVBENCH_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_passed, tap_failed, tap_skipped;

static void __attribute__((format(printf, 2, 3), unused))
tap_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		tap_passed++;
	else
		tap_failed++;
}

static void __attribute__((format(printf, 2, 3), unused))
tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", reason);
	fflush(stdout);
	tap_skipped++;
}

/* "# ..." diagnostic line */
static void __attribute__((format(printf, 1, 2), unused))
tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/*
 * Closing line "N passed, N failed[, N skipped]" (as a "# " comment when
 * a runner prints the real closing line) and the exit code: 1 if any
 * failed, 4 if nothing passed but something was skipped, else 0.
 */
static int __attribute__((unused)) tap_finish(bool as_comment)
{
	printf("%s%d passed, %d failed", as_comment ? "# " : "",
	       tap_passed, tap_failed);
	if (tap_skipped)
		printf(", %d skipped", tap_skipped);
	printf("\n");
	fflush(stdout);
	if (tap_failed)
		return 1;
	return !tap_passed && tap_skipped ? 4 : 0;
}

/* The whole test cannot run here: one SKIP line, the summary, exit 4 */
static void __attribute__((noreturn, format(printf, 3, 4), unused))
tap_skip_all(const char *test, bool as_comment, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	tap_skip(reason, "%s", test);
	exit(tap_finish(as_comment) == 1 ? 1 : 4);
}

/*
 * The kernel lacks the private-memory series: skip, unless the runner
 * says this kernel must have it (CONVBENCH_REQUIRE_SERIES=1 in the
 * project's own VM), where a missing series is a failure, not a skip.
 */
static void __attribute__((noreturn, format(printf, 3, 4), unused))
tap_no_series(const char *test, bool as_comment, const char *fmt, ...)
{
	const char *req = getenv("CONVBENCH_REQUIRE_SERIES");
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (req && *req && *req != '0') {
		tap_result(false, "%s: %s (CONVBENCH_REQUIRE_SERIES is set)",
			   test, reason);
		exit(tap_finish(as_comment));
	}
	tap_skip_all(test, as_comment, "%s", reason);
}

#endif /* CONVBENCH_TAP_H */
