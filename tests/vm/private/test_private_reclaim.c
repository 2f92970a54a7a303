// SPDX-License-Identifier: GPL-2.0
/*
 * When private pages leave a guest, KVM tells the architecture
 * (kernel/patches: kvm_arch_guest_memory_reclaimed() after the memfile
 * notifier's zap, as after an MMU notifier's): a kprobe on
 * kvm_arch_guest_memory_reclaimed counts the calls while the host punches
 * a private page of a private slot (at least one), and while it punches
 * a page of an MFD_INACCESSIBLE fd that no VM uses (none: the count is
 * the slot's). Needs tracefs with kprobe events (the project's kernels
 * have them); skips without the series.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "inplace_check.h"
#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_private_reclaim"
#define TRACING		"/sys/kernel/tracing"
#define EVENT		"convbench_reclaim"
#define GPA		0x40000000ULL
#define PAGE		GUEST_PAGE_SIZE

static GUEST_CODE void guest_touch(uint64_t gpa)
{
	guest_write64(gpa, 1);
	GUEST_SYNC(0);
	GUEST_DONE();
}

/* the kprobe's hits (kprobe_profile: "<event> <hits> <misses>"), -1 */
static long hits(void)
{
	FILE *f = fopen(TRACING "/kprobe_profile", "r");
	char name[128];
	long h = -1, n, miss;

	if (!f)
		return -1;
	while (fscanf(f, "%127s %ld %ld", name, &n, &miss) == 3)
		if (!strcmp(name, EVENT))
			h = n;
	fclose(f);
	return h;
}

static bool kprobe(bool on)
{
	if (!on) {
		write_file(TRACING "/events/kprobes/" EVENT "/enable", "0");
		return write_file(TRACING "/kprobe_events", "-:" EVENT);
	}
	return write_file(TRACING "/kprobe_events",
			  "p:" EVENT " kvm_arch_guest_memory_reclaimed") &&
	       write_file(TRACING "/events/kprobes/" EVENT "/enable", "1");
}

int main(void)
{
	struct vm_mem_opts o = {
		.slot = 1, .flags = KVM_MEM_PRIVATE, .gpa = GPA, .size = SZ_2M,
		.backing = VM_BACKING_ANON,
	};
	struct kvm_vcpu *vcpu = NULL;
	struct kvm_vm *vm = NULL;
	long h0, h_slot, h_lone;
	struct ucall uc;
	int fd, lone, r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	require_series(TEST_NAME, false);
	if (access(TRACING "/kprobe_events", W_OK))
		tap_skip_all(TEST_NAME, true, "no kprobe events in tracefs at " TRACING);

	fd = memfd_inaccessible_create("convbench-reclaim", SZ_2M);
	lone = memfd_inaccessible_create("convbench-reclaim-lone", SZ_2M);
	o.private_fd = fd;
	r = fd < 0 ? fd : lone < 0 ? lone : __private_fallocate(fd, 0, SZ_2M);
	if (!r)
		r = __private_fallocate(lone, 0, SZ_2M);
	if (!r)
		r = __vm_create(&vm, NULL);
	if (!r)
		r = __vm_mem_add(vm, &o, NULL);
	if (!r)
		r = __vm_set_sw_private(vm, GPA, SZ_2M, true);
	if (!r)
		r = __vm_vcpu_add(vm, 0, guest_touch, &vcpu);
	if (!r) {
		vcpu_args_set(vcpu, 1, GPA);
		vcpu_set_timeout(vcpu, 20000);
		r = __vcpu_run(vcpu);
		if (!r && get_ucall(vcpu, &uc) != UCALL_SYNC)
			r = -EPROTO;
	}
	tap_result(!r, "a guest that mapped a private page (%s)",
		   r ? strerror(-r) : "ok");
	if (r)
		return tap_finish(true);
	if (!kprobe(true)) {
		tap_result(false, "a kprobe on kvm_arch_guest_memory_reclaimed: %s",
			   strerror(errno));
		kprobe(false);
		return tap_finish(true);
	}
	h0 = hits();
	r = __private_punch_hole(fd, 0, PAGE);
	h_slot = hits();
	if (!r)
		r = __private_punch_hole(lone, 0, PAGE);
	h_lone = hits();
	kprobe(false);
	tap_result(!r && h0 >= 0 && h_slot - h0 >= 1 && h_lone == h_slot,
		   "kvm_arch_guest_memory_reclaimed(): %ld call(s) while a private page of the slot was punched (want >= 1), %ld for a page of an fd no VM uses (want 0)%s%s",
		   h_slot - h0, h_lone - h_slot, r ? "; punch: " : "",
		   r ? strerror(-r) : "");
	kvm_vm_free(vm);
	close(fd);
	close(lone);
	return tap_finish(true);
}
