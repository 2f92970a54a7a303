// SPDX-License-Identifier: GPL-2.0
/*
 * bench/cell/invariants.c: a conversion that is plausible in every mode,
 * trigger, direction and content mode passes; each way a driver bug
 * shows in the timings (components over the total, a copy where none is
 * made, host phases of another conversion, a window that ends before
 * the range is usable, a phase that cannot occur) is caught, by name.
 */
#include <string.h>

#include "invariants.h"
#include "tap.h"

/* a conversion as convbench records it: numbers from the reference run */
static struct inv_sample good(enum conv_mode m, enum conv_trigger t,
			      enum conv_dir d, bool preserve)
{
	bool gmem = m == MODE_GMEM;
	bool copies = (m == MODE_DESTRUCTIVE || gmem) && preserve;
	bool drop_only = gmem && d == DIR_TO_PRIVATE;
	struct inv_sample s = {
		.mode = m, .dir = d, .trigger = t, .preserve = preserve,
		.size = 65536, .exits = t == TRIGGER_IMPLICIT ? 16 : 1,
		.copy = copies ? 16000 : 0,
		.exit_rt = t == TRIGGER_IMPLICIT ? 0 : 93000,
		.host = 57000, .record = 19000,
		.mem = drop_only ? 0 : 36000,
		.release = m != MODE_INPLACE && d == DIR_TO_PRIVATE ?
			   2000 : 0,
	};

	/*
	 * implicit: the record update (host clock) is part of the sample;
	 * gmem's is the handler's, inside the faulting accesses
	 */
	s.after_exit = t == TRIGGER_IMPLICIT ? 500000 : 400000;
	s.total = s.copy + s.exit_rt + s.after_exit + 10 +
		  (t == TRIGGER_IMPLICIT && !gmem ? s.record : 0);
	s.first = s.copy + s.exit_rt + 30000 +
		  (t == TRIGGER_IMPLICIT && !gmem ? s.record : 0);
	return s;
}

/* s must be refused with a reason containing word */
static void caught(const struct inv_sample *s, const char *word,
		   const char *what)
{
	char why[256];
	const char *r = inv_check(s, 2, why, sizeof(why));

	tap_result(r && strstr(r, word), "%s is caught (%s)", what,
		   r ? r : "not caught");
}

/* plausible samples pass, rounding within the tolerance too */
static void test_plausible(void)
{
	struct inv_sample s;
	char why[256];
	int m, t, d, p, bad = 0;

	for (m = 0; m < MODE_NR; m++)
		for (t = 0; t < 2; t++)
			for (d = 0; d < DIR_NR; d++)
				for (p = 0; p < 2; p++) {
					s = good(m, t, d, p);
					bad += !!inv_check(&s, 0, why, sizeof(why));
				}
	tap_result(!bad, "a plausible conversion passes in each mode, trigger, direction and content mode (%d refused)",
		   bad);
	s = good(MODE_DESTRUCTIVE, TRIGGER_EXPLICIT, DIR_TO_SHARED, true);
	s.total -= 3;
	tap_result(!inv_check(&s, 2, why, sizeof(why)),
		   "rounding within the tolerance passes (2 ns)");
	s.total -= 20;
	caught(&s, "> total", "components adding up to more than the total");
}

/* the first access lies in the window */
static void test_first_access(void)
{
	struct inv_sample s;

	s = good(MODE_INPLACE, TRIGGER_EXPLICIT, DIR_TO_PRIVATE, true);
	s.first = s.total + 100;
	caught(&s, "after the end", "a window that ends before the range is usable");
	s = good(MODE_INPLACE, TRIGGER_EXPLICIT, DIR_TO_PRIVATE, true);
	s.first = s.exit_rt - 100;
	caught(&s, "not after the request returned", "a first access before the request returned");
	/* a window that ends when the exit returns: the access took no time */
	s = good(MODE_DESTRUCTIVE, TRIGGER_EXPLICIT, DIR_TO_SHARED, true);
	s.first = s.copy + s.exit_rt;
	caught(&s, "not after the request returned", "a first access timed at the exit's return");
	s = good(MODE_DESTRUCTIVE, TRIGGER_IMPLICIT, DIR_TO_PRIVATE, true);
	s.first = s.copy + s.record + 2;
	caught(&s, "not after the request returned", "an implicit first access within the tolerance of the record update");
}

/* a copy only where one is made */
static void test_copies(void)
{
	struct inv_sample s;

	s = good(MODE_INPLACE, TRIGGER_EXPLICIT, DIR_TO_SHARED, true);
	s.copy = 10;
	s.total += 10;
	caught(&s, "nothing is copied", "a copy in place");
	s = good(MODE_DESTRUCTIVE, TRIGGER_IMPLICIT, DIR_TO_SHARED, false);
	s.copy = 10;
	s.total += 10;
	caught(&s, "nothing is copied", "a copy with --no-preserve");
	s = good(MODE_DESTRUCTIVE, TRIGGER_EXPLICIT, DIR_TO_SHARED, true);
	s.copy = 0;
	caught(&s, "copied aside", "no copy where destructive --preserve copies");
}

/* the host phases inside the exit round trip */
static void test_host_phases(void)
{
	struct inv_sample s;

	s = good(MODE_DESTRUCTIVE, TRIGGER_EXPLICIT, DIR_TO_PRIVATE, true);
	s.mem = s.host;
	caught(&s, "host phases", "host phases longer than the handler");
	s = good(MODE_INPLACE, TRIGGER_EXPLICIT, DIR_TO_SHARED, true);
	s.host = s.exit_rt + 50;
	caught(&s, "exit round trip", "a handler outside the exit round trip");
	s = good(MODE_INPLACE, TRIGGER_IMPLICIT, DIR_TO_SHARED, true);
	s.host = s.after_exit + s.record + 50;
	caught(&s, "faulting accesses", "an implicit handler outside the record update and the faulting accesses");
	s = good(MODE_INPLACE, TRIGGER_IMPLICIT, DIR_TO_SHARED, true);
	s.total -= s.record;
	caught(&s, "> total", "an implicit sample without its record update");
	s = good(MODE_INPLACE, TRIGGER_EXPLICIT, DIR_TO_SHARED, true);
	s.host = s.mem = s.record = 0;
	s.exits = 0;
	caught(&s, "no exit credited", "a conversion without host phases (credited elsewhere)");
}

/* phases a mode or a trigger cannot have are 0; exits per conversion */
static void test_mode_phases(void)
{
	struct inv_sample s;

	s = good(MODE_DESTRUCTIVE, TRIGGER_EXPLICIT, DIR_TO_SHARED, true);
	s.release = 100;
	caught(&s, "nothing is released", "a release in destructive to-shared");
	s = good(MODE_INPLACE, TRIGGER_EXPLICIT, DIR_TO_PRIVATE, true);
	s.release = 100;
	caught(&s, "nothing is released", "a release in place");
	s = good(MODE_DESTRUCTIVE, TRIGGER_IMPLICIT, DIR_TO_PRIVATE, true);
	s.exit_rt = 100;
	s.total += 100;
	caught(&s, "implicit: exit round trip", "an exit round trip of its own with the implicit trigger");
	s = good(MODE_DESTRUCTIVE, TRIGGER_EXPLICIT, DIR_TO_PRIVATE, true);
	s.record = 0;
	caught(&s, "record update 0", "no record update with the explicit trigger");
	s = good(MODE_INPLACE, TRIGGER_IMPLICIT, DIR_TO_SHARED, false);
	s.total -= s.record;
	s.first -= s.record;
	s.record = 0;
	caught(&s, "record update 0", "no record update with the implicit trigger");
	s = good(MODE_GMEM, TRIGGER_IMPLICIT, DIR_TO_SHARED, true);
	s.record = 0;
	caught(&s, "gmem: record", "gmem: no attribute update in the handler");
	s = good(MODE_GMEM, TRIGGER_EXPLICIT, DIR_TO_PRIVATE, false);
	s.mem = 100;
	caught(&s, "nothing is allocated", "gmem to-private: an allocation in the handler");
	s = good(MODE_GMEM, TRIGGER_IMPLICIT, DIR_TO_PRIVATE, true);
	s.release = 0;
	caught(&s, "no exit credited", "gmem to-private: no shared page dropped");
	s = good(MODE_GMEM, TRIGGER_EXPLICIT, DIR_TO_SHARED, true);
	s.copy = 0;
	caught(&s, "copied aside", "no copy where gmem --preserve copies");
	s = good(MODE_GMEM, TRIGGER_IMPLICIT, DIR_TO_SHARED, true);
	s.host = s.after_exit + 50;
	caught(&s, "faulting accesses", "gmem: an implicit handler outside the faulting accesses");
	s = good(MODE_DESTRUCTIVE, TRIGGER_EXPLICIT, DIR_TO_PRIVATE, true);
	s.exits = 2;
	caught(&s, "explicit: 2 exits", "two exits for one hypercall");
	s = good(MODE_INPLACE, TRIGGER_IMPLICIT, DIR_TO_PRIVATE, true);
	s.exits = 17;
	caught(&s, "one per page", "more faults than pages");
}

/* a cell: the second of three samples is bad, named by iteration */
static void test_cell(void)
{
	struct conv_sample cs[3];
	struct cell_result res;
	char why[256];
	int d, bad;

	memset(&res, 0, sizeof(res));
	memset(cs, 0, sizeof(cs));
	res.p.mode = MODE_INPLACE;
	res.p.trigger = TRIGGER_EXPLICIT;
	res.p.size = 4096;
	res.samples = cs;
	res.n = 3;
	for (d = 0; d < 3; d++) {
		cs[d] = (struct conv_sample) {
			.vcpu = 1, .iter = d, .dir = DIR_TO_SHARED, .exits = 1,
			.total = 1000, .first = 900, .exit_rt = 600,
			.fault_in = 400, .host = 500, .host_record = 100,
			.host_mem = 200,
		};
	}
	cs[1].host = 700;
	bad = inv_check_cell(&res, 0, why, sizeof(why));
	tap_result(bad == 1 && strstr(why, "vCPU 1 iteration 1 to-shared"),
		   "inv_check_cell counts 1 bad sample and names it (%d: %s)",
		   bad, bad ? why : "");
}

int main(void)
{
	test_plausible();
	test_first_access();
	test_copies();
	test_host_phases();
	test_mode_phases();
	test_cell();
	return tap_finish(false);
}
