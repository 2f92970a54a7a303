// SPDX-License-Identifier: GPL-2.0
/* convstress, the vCPU threads: run, convert through convbench's modes, verify (convstress.h) */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "convstress.h"
#include "inplace.h"
#include "inplace_check.h"
#include "stress_host.h"
#include "verdict.h"

/* ------------------------------------------------------------------ */
/* the VMM's conversion: convbench's own (bench/modes/host_conv.c)    */

/*
 * A pin of the pin thread, or a page cache walker's reference, is short:
 * wait it out (convbench fails instead), up to BUSY_MAX_US
 */
bool busy_retry(struct conv_ctx *c, enum conv_busy why,
		       unsigned int tries)
{
	struct stress_slot *sl = (struct stress_slot *)
		((char *)c - offsetof(struct stress_slot, conv));

	(void)tries;
	if (now_us() - sl->busy_t0 >= BUSY_MAX_US)
		return false;
	stress_count(&st, why == CONV_BUSY_PUNCH ? C_PUNCH_RETRY :
		     C_CONV_BUSY_RETRY, 1);
	sleep_us(BUSY_RETRY_US);
	return true;
}

static int convert(struct stress_vcpu *v, uint64_t gpa, uint64_t npages,
		   bool to_private)
{
	unsigned int s = v->g->req_slot, preserve = v->g->req_preserve;
	struct host_phases ph = { 0 };
	struct stress_slot *sl;
	uint64_t off, len = npages * PAGE, p;
	int r;

	if (s >= STRESS_SLOTS)
		return -EINVAL;
	sl = &st.slot[s];
	off = gpa - sl->gpa;

	pthread_rwlock_wrlock(&sl->lock);
	sl->conv.preserve = preserve;
	sl->busy_t0 = now_us();
	/* the record, then the memory: as convbench's explicit trigger */
	r = host_conv_convert(&sl->conv, gpa, len, to_private, true, &ph);
	if (!r)
		for (p = off / PAGE; p < (off + len) / PAGE; p++)
			sl->shadow[p] = !to_private;
	pthread_rwlock_unlock(&sl->lock);
	if (r)
		return r;
	stress_count(&st, s == STRESS_SLOT_D ?
		     (to_private ? C_CONV_D_PRIVATE : C_CONV_D_SHARED) :
		     (to_private ? C_CONV_I_PRIVATE : C_CONV_I_SHARED), 1);
	stress_count(&st, preserve ? C_CONV_PRESERVE : C_CONV_ZERO, 1);
	stress_count(&st, C_CONV_PAGES, npages);
	return 0;
}

/* what the host knows of the page a memory exit names */
static void describe_memory_exit(struct stress_vcpu *v,
				 const struct kvm_run_memory_exit *m,
				 char *buf, size_t len)
{
	unsigned int s = m->gpa >= GPA_I ? STRESS_SLOT_I : STRESS_SLOT_D;
	struct stress_slot *sl = &st.slot[s];
	uint64_t off = m->gpa - sl->gpa, p = off / PAGE;
	off_t data = lseek(sl->fd, off, SEEK_DATA);
	uint64_t gp = (m->gpa - v->g->base[s]) / PAGE;
	const uint8_t *gstate = addr_gpa2hva(vm, (uintptr_t)v->g->state[s]);

	snprintf(buf, len, "gpa %#llx (slot %c page %llu) size %#llx flags %#x, after op %llu; the fd %s there, the host's record says %s, the guest's %s",
		 (unsigned long long)m->gpa, s ? 'I' : 'D',
		 (unsigned long long)p, (unsigned long long)m->size, m->flags,
		 (unsigned long long)v->g->ops,
		 data == (off_t)off ? "has a page" : "has no page",
		 p < sl->guest_bytes / PAGE ?
		 (sl->shadow[p] ? "shared" : "private") : "?",
		 gp < v->g->npages ? (gstate[gp] ? "shared" : "private") : "?");
}

/*
 * A SHUTDOWN: say why, then wait for the main thread's report (it looks
 * at every vCPU while the others still run) and for the failure it
 * records; should it not come, fail here.
 */
static void vcpu_shutdown(struct stress_vcpu *v)
{
	char tables[160] = "";
	uint64_t waited = 0;

	/*
	 * KVM (SVM) resets the vCPU at a SHUTDOWN: its registers say
	 * nothing. The guest's tables in memory and its own note of what
	 * it was doing stay. --inject's fault is the guest's, not the
	 * emulator's, and is said so.
	 */
	if (v->g->phase == STRESS_PHASE_INJECT)
		snprintf(tables, sizeof(tables),
			 "the guest's own triple fault (--inject)");
	else
		x86_check_tables(vm, tables, sizeof(tables));
	snprintf(v->why, sizeof(v->why),
		 "vCPU %u: KVM_RUN 0, exit SHUTDOWN: %s (op %llu, %s)",
		 v->id, tables, (unsigned long long)v->g->ops + 1,
		 stress_phase_str(v->g->phase));
	atomic_store(&v->shutdown, true);
	while (!atomic_load(&st.failed) && waited < SHUTDOWN_WAIT_MS) {
		sleep_us(10000);
		waited += 10;
	}
	stress_fail(&st, "%s", v->why);
}

void *vcpu_main(void *arg)
{
	struct stress_vcpu *v = arg;
	uint64_t gpa = 0, npages = 0, attrs = 0;
	struct ucall uc = { 0 };
	char buf[512], name[16];
	bool map;
	int r;

	atomic_store(&v->tid, gettid());
	snprintf(name, sizeof(name), "vcpu%u", v->id);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load(&st.failed)) {
		if (atomic_load(&st.stop))
			v->g->stop = 1;
		stress_entry_look(v);
		atomic_store(&v->run_since_us, now_us());
		atomic_store(&v->in_run, true);
		r = __vcpu_run(v->vcpu);
		atomic_store(&v->in_run, false);
		atomic_fetch_add(&v->runs, 1);
		atomic_store(&v->last_exit, v->vcpu->run->exit_reason);
		/* kicked out by the main thread's report */
		if (r == -EINTR && atomic_load(&st.failed))
			break;
		map = !r && get_map_gpa_range(v->vcpu, &gpa, &npages, &attrs);
		uc.cmd = UCALL_NONE;
		if (!r && !map)
			get_ucall(v->vcpu, &uc);
		switch (sv_classify_exit(r, v->vcpu->run->exit_reason, map,
					 uc.cmd, uc.args[0])) {
		case SV_EXIT_CONVERT:
			r = convert(v, gpa, npages,
				    attrs & KVM_MAP_GPA_RANGE_ENCRYPTED);
			if (r) {
				stress_fail(&st, "vCPU %u op %llu: converting %#llx+%llu pages of slot %c: %s",
					    v->id, (unsigned long long)v->g->ops + 1,
					    (unsigned long long)gpa,
					    (unsigned long long)npages,
					    v->g->req_slot ? 'I' : 'D', strerror(-r));
				goto out;
			}
			v->vcpu->run->hypercall.ret = 0;
			continue;
		case SV_EXIT_DONE:
			goto out;
		case SV_EXIT_HANG:
			/* the main thread's watch missed it: no report */
			stress_fail(&st, "vCPU %u hung: no exit for %u s (op %llu)",
				    v->id, RUN_BACKSTOP_MS / 1000,
				    (unsigned long long)v->g->ops);
			goto out;
		case SV_EXIT_BAD_DATA:
			stress_fail(&st, "vCPU %u op %llu: gpa %#llx holds %#llx, want %#llx",
				    v->id, (unsigned long long)uc.args[1],
				    (unsigned long long)uc.args[2],
				    (unsigned long long)uc.args[3],
				    (unsigned long long)uc.args[4]);
			goto out;
		case SV_EXIT_HC_FAILED:
			stress_fail(&st, "vCPU %u op %llu: the conversion hypercall returned %lld",
				    v->id, (unsigned long long)uc.args[1],
				    (long long)uc.args[2]);
			goto out;
		case SV_EXIT_SHUTDOWN:
			vcpu_shutdown(v);
			goto out;
		case SV_EXIT_UNEXPECTED:
			break;
		}
		buf[0] = '\0';
		if (!r && uc.cmd != UCALL_NONE)
			ucall_describe(vm, &uc, buf, sizeof(buf));
		else if (r && v->vcpu->run->exit_reason == KVM_EXIT_MEMORY_ERROR)
			describe_memory_exit(v, kvm_run_memory(v->vcpu->run),
					     buf, sizeof(buf));
		stress_fail(&st, "vCPU %u: KVM_RUN %s, exit %s%s%s", v->id,
			    r ? strerror(-r) : "0",
			    exit_reason_str(v->vcpu->run->exit_reason),
			    buf[0] ? ": " : "", buf);
		break;
	}
out:
	stress_count(&st, C_GUEST_VERIFIED, v->g->verified);
	atomic_store(&v->out, true);
	return NULL;
}
