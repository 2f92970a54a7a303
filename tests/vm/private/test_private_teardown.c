// SPDX-License-Identifier: GPL-2.0
/*
 * A VM goes away while its private fd changes (kernel/patches: private
 * slots are unbound before the VM's MMU is torn down): each round makes a
 * VM whose guest has mapped all of a private slot, starts host threads
 * that fallocate and punch the slot's fd without pause, and closes the
 * VM under them. Nothing may fail, and the kernel must report nothing (the
 * debug kernel's KASAN and lockdep, a WARN on the TDP MMU's root list;
 * the VM runner fails the suite on any report).
 *
 * Skips (exit 4) without the series, unless CONVBENCH_REQUIRE_SERIES.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "kvm_util.h"
#include "tap.h"

#define TEST_NAME	"test_private_teardown"
#define GPA		0x40000000ULL
#define SIZE		(8 * SZ_2M)
#define PAGE		GUEST_PAGE_SIZE
#define ROUNDS		24
#define THREADS		2

static atomic_bool stop;
static atomic_ulong changes;
static int cur_fd;

static GUEST_CODE void guest_touch(uint64_t gpa, uint64_t size)
{
	uint64_t p;

	for (p = 0; p < size; p += PAGE)
		guest_write64(gpa + p, p);
	GUEST_SYNC(0);
	GUEST_DONE();
}

static void *punch_main(void *arg)
{
	uint64_t off = (uintptr_t)arg * SZ_2M;

	while (!atomic_load(&stop)) {
		/* errors do not matter here: the fd outlives the VM */
		__private_punch_hole(cur_fd, off, SZ_2M);
		__private_fallocate(cur_fd, off, SZ_2M);
		off = (off + SZ_2M) % SIZE;
		changes++;
	}
	return NULL;
}

/* one round: 0, or what failed */
static const char *round_once(int *err)
{
	struct vm_mem_opts o = {
		.slot = 1, .flags = KVM_MEM_PRIVATE, .gpa = GPA, .size = SIZE,
		.backing = VM_BACKING_ANON,
	};
	struct kvm_vcpu *vcpu = NULL;
	struct kvm_vm *vm = NULL;
	struct ucall uc;
	pthread_t t[THREADS];
	int r, n, i;

	cur_fd = memfd_inaccessible_create("convbench-teardown", SIZE);
	if (cur_fd < 0)
		return *err = -cur_fd, "memfd";
	o.private_fd = cur_fd;
	r = __private_fallocate(cur_fd, 0, SIZE);
	if (!r)
		r = __vm_create(&vm, NULL);
	if (!r)
		r = __vm_mem_add(vm, &o, NULL);
	if (!r)
		r = __vm_set_sw_private(vm, GPA, SIZE, true);
	if (!r)
		r = __vm_vcpu_add(vm, 0, guest_touch, &vcpu);
	if (!r) {
		vcpu_args_set(vcpu, 2, GPA, SIZE);
		vcpu_set_timeout(vcpu, 20000);
		r = __vcpu_run(vcpu);
		if (!r && get_ucall(vcpu, &uc) != UCALL_SYNC)
			r = -EPROTO;
	}
	if (r) {
		if (vm)
			kvm_vm_free(vm);
		close(cur_fd);
		return *err = -r, "VM with a private slot its guest mapped";
	}
	atomic_store(&stop, false);
	for (n = 0; n < THREADS; n++)
		if (pthread_create(&t[n], NULL, punch_main, (void *)(uintptr_t)n))
			break;
	if (n == THREADS) {
		/* let the threads get going, then drop the VM under them */
		usleep(2000);
		kvm_vm_free(vm);
		vm = NULL;
		usleep(2000);
	}
	atomic_store(&stop, true);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (vm)
		kvm_vm_free(vm);
	close(cur_fd);
	if (n < THREADS)
		return *err = EAGAIN, "punch threads";
	return NULL;
}

int main(void)
{
	const char *what = NULL;
	int r, i, err = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = kvm_check_cap(KVM_CAP_PRIVATE_MEM);
	if (r <= 0)
		tap_no_series(TEST_NAME, true,
			      "KVM_CHECK_EXTENSION(KVM_CAP_PRIVATE_MEM) is %d: kernel lacks the series",
			      r);
	for (i = 0; i < ROUNDS && !what; i++)
		what = round_once(&err);
	tap_result(!what,
		   "%d VMs closed while %d host threads punched and fallocated their private fds (%lu changes)%s%s%s%s",
		   i, THREADS, (unsigned long)changes, what ? ": " : "", what ? what : "",
		   what ? ": " : "", what ? strerror(err) : "");
	return tap_finish(true);
}
