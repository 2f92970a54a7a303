// SPDX-License-Identifier: GPL-2.0
/*
 * The record of software-private gfns (KVM_SET_SW_PRIVATE_RANGE) is a
 * maple tree in RCU mode, because private faults read it without a lock.
 * Such a tree is freed by an RCU callback, whatever its shape when the VM
 * goes (kernel/patches 46 and 47: the maple tree keeps a full node's
 * last child when an RCU tree is freed, and bounds its free walk by each
 * parent's count of children). On 6.1 the free walk, once it had turned a
 * node's children into plain pointers, took a full node's last child for
 * the node's metadata and cleared it: two bytes of that pointer. The
 * callback then freed the mangled address, a double free of another
 * maple node (KASAN, in mt_free_walk()) or the free of something else,
 * and the real node leaked. Two vCPUs converting their own ranges in
 * place met it within a few runs. Past that, in a tree of four levels
 * the callback took the metadata of a parent with 15 children for a
 * 16th child and dereferenced it.
 *
 * Here each VM's record takes a shape of its own: n private gfns, each
 * alone between shared ones (2n entries), stored upwards, downwards, or
 * upwards and then wiped by one store over all of them (a spanning
 * store, which frees the replaced subtrees the same way). n runs over
 * 96-160, where the two-level tree's root fills (on 6.1.192 the bad free
 * came at n = 119-122 upwards and wiped, 106 downwards), and then
 * doubles from 320 to 2560 for deeper trees (2560 downwards met the
 * second bug). Every store must succeed; then the test waits for the
 * callbacks. The judge of the frees is the kernel: the debug kernel's
 * KASAN reports a bad free, and the VM runner fails the suite on any
 * kernel report.
 *
 * Skips (exit 4) without the series, unless CONVBENCH_REQUIRE_SERIES.
 */
#include <unistd.h>

#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_private_record"
#define GPA		0x40000000ULL
#define PAGE		GUEST_PAGE_SIZE
#define FIRST_N		96
#define LAST_N		160
#define DEEP_N		2560

enum shape { UPWARDS, DOWNWARDS, WIPED, SHAPES };

static const char *const shape_name[SHAPES] = {
	"stored upwards", "stored downwards", "stored upwards, then wiped",
};

/* one VM whose record holds n lone private gfns; 0 or -errno */
static int one_vm(enum shape s, unsigned int n, const char **what)
{
	struct kvm_vm *vm = NULL;
	unsigned int i, gfn;
	int r;

	r = __vm_create(&vm, NULL);
	if (r) {
		*what = "KVM_CREATE_VM";
		return r;
	}
	for (i = 0; i < n && !r; i++) {
		gfn = s == DOWNWARDS ? n - 1 - i : i;
		r = __vm_set_sw_private(vm, GPA + 2ULL * gfn * PAGE, PAGE, true);
		*what = "KVM_SET_SW_PRIVATE_RANGE (one gfn private)";
	}
	if (!r && s == WIPED) {
		r = __vm_set_sw_private(vm, GPA, 2ULL * n * PAGE, false);
		*what = "KVM_SET_SW_PRIVATE_RANGE (all of them shared)";
	}
	kvm_vm_free(vm);
	return r;
}

int main(void)
{
	const char *what = NULL;
	unsigned int n;
	enum shape s;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = kvm_check_cap(KVM_CAP_PRIVATE_MEM_SW_GFN);
	if (r <= 0)
		tap_no_series(TEST_NAME, true,
			      "KVM_CHECK_EXTENSION(KVM_CAP_PRIVATE_MEM_SW_GFN) is %d: kernel lacks the series",
			      r);
	for (s = 0; s < SHAPES; s++) {
		for (n = FIRST_N;; n = n < LAST_N ? n + 1 : 2 * n) {
			r = one_vm(s, n, &what);
			if (r || n == DEEP_N)
				break;
		}
		if (r)
			tap_result(false, "records of lone private gfns, %s: at %u gfns, %s: %s",
				   shape_name[s], n, what, strerror(-r));
		else
			tap_result(true, "records of %u-%u and %u-%u lone private gfns, %s, freed with their VMs",
				   FIRST_N, LAST_N, 2 * LAST_N, DEEP_N, shape_name[s]);
	}
	/* the records go in RCU callbacks: let them run while this test is the one judged */
	sleep(2);
	return tap_finish(true);
}
