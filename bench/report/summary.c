// SPDX-License-Identifier: GPL-2.0
/*
 * summary.json: provenance, the method (rounds, order seed, how the CIs
 * are made), the rounds, per cell the pooled statistics with the samples
 * beyond each percentile and the per-round percentiles, the ratios with
 * their per-round values, and what the extras add (work counts, trace,
 * overhead, clock). analysis/ reads its statistics from here and
 * recomputes none.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "provenance.h"
#include "report.h"
#include "units.h"

static void json_pcts(struct jsonw *w, const struct cell_stats *c)
{
	unsigned int p;
	char key[32];

	for (p = 0; p < CS_NPCT; p++) {
		jsonw_kv_double(w, cs_pct_name[p], c->pct[p]);
		snprintf(key, sizeof(key), "%s_beyond", cs_pct_name[p]);
		jsonw_kv_u64(w, key, c->beyond[p]);
	}
}

/* the emulator's fixed costs the cell's VMs measured, and its p50 less them */
static void json_fixed(struct jsonw *w, const struct cell_stats *c)
{
	static const char *const key[CAL_NR] = {
		[CAL_NULL_EXIT] = "null_exit_ns",
		[CAL_NPT_FAULT] = "npt_fault_ns",
	};
	unsigned int k;

	jsonw_key(w, "fixed_costs");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "method", "measured in every VM before its first "
		     "conversion: a null exit to userspace (the conversion "
		     "hypercall answered without work) and a write fault on a "
		     "page the host has allocated and KVM has not mapped; a "
		     "conversion's fixed cost is its userspace exits times the "
		     "null exit plus its other NPT faults (counted) times the "
		     "fault, per round");
	for (k = 0; k < CAL_NR; k++) {
		jsonw_key(w, key[k]);
		jsonw_obj_open(w);
		jsonw_kv_u64(w, "n", c->cal_n[k]);
		jsonw_kv_double(w, "p50", c->cal_n[k] ? c->cal_ns[k] : NAN);
		jsonw_obj_close(w);
	}
	jsonw_kv_double(w, "per_conversion_ns", c->fixed_ns);
	jsonw_kv_double(w, "p50_less_fixed_ns", c->n && !isnan(c->fixed_ns) ?
			c->pct[CS_P50] - c->fixed_ns : NAN);
	jsonw_obj_close(w);
}

/* the tail spectrum: pooled percentiles, 95% bands over resampled rounds */
static void json_spectrum(struct jsonw *w, const struct cell_stats *c)
{
	unsigned int p;

	jsonw_key(w, "spectrum");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "band", "95%: the 2.5% and 97.5% quantiles of the "
		     "percentile over pools of the cell's rounds drawn with "
		     "replacement (percentile bootstrap over boots)");
	jsonw_kv_u64(w, "resamples", c->nrounds >= 2 ? CS_BOOT : 0);
	jsonw_key(w, "percentiles");
	jsonw_arr_open(w);
	for (p = 0; p < CS_NSPEC; p++) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "pct", cs_spec_name[p]);
		jsonw_kv_double(w, "ns", c->spec[p].value);
		jsonw_kv_double(w, "band_lo", c->spec[p].lo);
		jsonw_kv_double(w, "band_hi", c->spec[p].hi);
		jsonw_kv_u64(w, "beyond", c->spec[p].beyond);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

static void json_cell(struct jsonw *w, const struct report *r,
		      const struct cell_stats *c)
{
	const struct cell_result *f = c->first;
	unsigned int k, p;
	char sz[32];

	jsonw_obj_open(w);
	jsonw_kv_str(w, "mode", conv_mode_name(c->mode));
	jsonw_kv_str(w, "size", size_str(c->size, sz, sizeof(sz)));
	jsonw_kv_u64(w, "size_bytes", c->size);
	jsonw_kv_str(w, "direction", conv_dir_name(c->dir));
	jsonw_kv_str(w, "trigger", f->p.trigger == TRIGGER_IMPLICIT ?
		     "implicit" : "explicit");
	jsonw_kv_bool(w, "preserve", f->p.preserve);
	jsonw_kv_u64(w, "vcpus", f->p.vcpus);
	jsonw_kv_u64(w, "busy_vcpus", f->p.busy_vcpus);
	jsonw_kv_u64(w, "warmup", f->p.warmup);
	jsonw_kv_u64(w, "rounds", c->nrounds);
	jsonw_kv_u64(w, "conversions_run", c->conversions);
	jsonw_kv_bool(w, "all_verified", !c->error);
	jsonw_kv_bool(w, "interrupted", c->interrupted);
	jsonw_kv_str(w, "error", c->error);
	jsonw_kv_str(w, "shmem_thp", f->thp[0] ? f->thp : NULL);
	jsonw_kv_u64(w, "tsc_khz", c->tsc_khz);
	jsonw_kv_double(w, "wall_s", c->wall_s);
	/* both directions and every vCPU of the rounds: per conversion */
	jsonw_key(w, "vm_counts");
	if (c->vm_conversions) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "scope", "the cell's whole run: both directions, "
			     "every vCPU, the guest kernel's IPIs (RES, CAL, "
			     "TLB) and KVM's remote TLB flush requests");
		jsonw_kv_double(w, "ipis_per_conversion",
				(double)c->vm_ipis / c->vm_conversions);
		jsonw_kv_double(w, "tlb_flush_requests_per_conversion",
				(double)c->vm_tlb_flush_req / c->vm_conversions);
		jsonw_obj_close(w);
	} else {
		jsonw_null(w);
	}
	jsonw_key(w, "total_ns");
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "n", c->n);
	if (c->n) {
		jsonw_kv_double(w, "mean", c->mean);
		jsonw_kv_double(w, "stddev", c->stddev);
		jsonw_kv_double(w, "min", c->min);
		json_pcts(w, c);
		jsonw_kv_double(w, "max", c->max);
		jsonw_kv_double(w, "p50_ci95_lo", c->p50_lo);
		jsonw_kv_double(w, "p50_ci95_hi", c->p50_hi);
	}
	jsonw_key(w, "per_round");
	jsonw_arr_open(w);
	for (k = 0; k < c->nrounds; k++) {
		jsonw_obj_open(w);
		jsonw_kv_u64(w, "round", c->round[k].round);
		jsonw_kv_u64(w, "n", c->round[k].n);
		for (p = 0; p < CS_NPCT; p++)
			jsonw_kv_double(w, cs_pct_name[p], c->round[k].pct[p]);
		/* its fixed costs, and what they came from (merge_gmem.c) */
		jsonw_kv_double(w, "fixed_ns", c->round[k].fixed_ns);
		jsonw_kv_double(w, "null_exit_ns",
				c->round[k].cal_ns[CAL_NULL_EXIT]);
		jsonw_kv_double(w, "npt_fault_ns",
				c->round[k].cal_ns[CAL_NPT_FAULT]);
		jsonw_kv_double(w, "npt_faults", c->round[k].npf);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
	jsonw_kv_double(w, "first_access_p50_ns", c->first_p50);
	jsonw_key(w, "phases_p50_ns");
	jsonw_obj_open(w);
	for (p = 0; p < PH_NR; p++)
		jsonw_kv_double(w, cs_phase_name[p], c->phase_p50[p]);
	jsonw_obj_close(w);
	jsonw_kv_double(w, "exits_per_conversion", c->n ? c->exits_mean : NAN);
	json_fixed(w, c);
	if (c->banded)
		json_spectrum(w, c);
	for (k = 0; k < r->nextra; k++) {
		if (!r->extra[k].cell_json)
			continue;
		jsonw_key(w, r->extra[k].key);
		r->extra[k].cell_json(w, c, r->extra[k].arg);
	}
	jsonw_obj_close(w);
}

/* a ratio's per-round values, each with its round */
static void json_per_round(struct jsonw *w, const struct ratio_pct *x)
{
	unsigned int k;

	jsonw_key(w, "per_round");
	jsonw_arr_open(w);
	for (k = 0; k < x->nrounds; k++) {
		jsonw_obj_open(w);
		jsonw_kv_u64(w, "round", x->round_id[k]);
		jsonw_kv_double(w, "ratio", x->per_round[k]);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

/* the p50 ratio with the emulator's fixed costs taken out */
static void json_norm(struct jsonw *w, const struct ratio_pct *x)
{
	jsonw_key(w, "p50_exit_normalized");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "what", "the p50s less each round's fixed_costs "
		     "per_conversion_ns; 95% CI as p50's, in no joint family");
	jsonw_kv_double(w, "ratio", x->nrounds ? x->ratio : NAN);
	jsonw_kv_double(w, "ci95_lo", x->lo);
	jsonw_kv_double(w, "ci95_hi", x->hi);
	jsonw_kv_u64(w, "ci95_df", x->df);
	jsonw_kv_double(w, "pooled", x->pooled);
	json_per_round(w, x);
	jsonw_obj_close(w);
}

void summary_json_ratio(struct jsonw *w, const struct ratio_stats *q)
{
	const char *num = conv_mode_name(q->num), *den = conv_mode_name(q->den);
	unsigned int p, k;
	char sz[32], key[64];

	jsonw_obj_open(w);
	jsonw_kv_str(w, "size", size_str(q->size, sz, sizeof(sz)));
	jsonw_kv_str(w, "direction", conv_dir_name(q->dir));
	snprintf(key, sizeof(key), "n_%s", num);
	jsonw_kv_u64(w, key, q->in->n);
	snprintf(key, sizeof(key), "n_%s", den);
	jsonw_kv_u64(w, key, q->de->n);
	for (p = 0; p < CS_NPCT; p++) {
		const struct ratio_pct *x = &q->pct[p];

		jsonw_key(w, cs_pct_name[p]);
		jsonw_obj_open(w);
		jsonw_kv_bool(w, "shown", x->shown);
		jsonw_kv_double(w, "ratio", x->ratio);
		jsonw_kv_double(w, "ci95_lo", x->lo);
		jsonw_kv_double(w, "ci95_hi", x->hi);
		jsonw_kv_u64(w, "ci95_df", x->df);
		jsonw_kv_str(w, "ci95_units", "rounds");
		jsonw_key(w, "ci95_covariates");
		effect_json_covariates(w, &x->fit, cs_cov_names[x->covs]);
		jsonw_kv_double(w, "unit_sd_log", x->df ? x->fit.unit_sd : NAN);
		jsonw_kv_double(w, "joint_ci95_lo", x->jlo);
		jsonw_kv_double(w, "joint_ci95_hi", x->jhi);
		jsonw_kv_u64(w, "joint_family", x->family);
		jsonw_kv_bool(w, "derived", x->derived);
		jsonw_key(w, "earlier_runs");
		jsonw_arr_open(w);
		for (k = 0; k < x->nearlier; k++) {
			jsonw_obj_open(w);
			jsonw_kv_str(w, "run", x->earlier_name[k]);
			jsonw_kv_double(w, "ratio", x->earlier[k]);
			jsonw_obj_close(w);
		}
		jsonw_arr_close(w);
		jsonw_kv_double(w, "pooled", x->pooled);
		snprintf(key, sizeof(key), "beyond_%s", num);
		jsonw_kv_u64(w, key, x->beyond_in);
		snprintf(key, sizeof(key), "beyond_%s", den);
		jsonw_kv_u64(w, key, x->beyond_de);
		json_per_round(w, x);
		jsonw_obj_close(w);
	}
	json_norm(w, &q->norm);
	jsonw_obj_close(w);
}

static void json_method(struct jsonw *w, const struct report *r)
{
	size_t i, valid = 0;

	for (i = 0; i < r->nrounds; i++)
		valid += !r->rounds[i].invalid;
	jsonw_key(w, "method");
	jsonw_obj_open(w);
	jsonw_kv_u64(w, "rounds", r->nrounds);
	jsonw_kv_u64(w, "rounds_valid", valid);
	jsonw_kv_u64(w, "order_seed", r->order_seed);
	if (r->env->design)
		jsonw_kv_str(w, "order", "make bench's declared design "
			     "(summary.json's design): one boot per kernel "
			     "and round; inside a boot every size runs its two "
			     "v5 modes in blocks A B B A or B A A B; kernel "
			     "order, traced phase first and v5 mode first "
			     "counterbalanced across rounds; every cell's "
			     "block in a fresh VM");
	else
		jsonw_kv_str(w, "order", "per round the sizes are shuffled "
			     "(PRNG seeded from order_seed and the round "
			     "number); a size runs both modes back to back, "
			     "which one first alternates across the run "
			     "(ABBA); every cell in a fresh VM");
	jsonw_kv_str(w, "ratio", "geometric mean of the per-round ratios "
		     "inplace/destructive of a percentile");
	jsonw_kv_str(w, "ci", "a ratio's ci95: the 95% confidence interval "
		     "of this configuration's ratio on this host, from this "
		     "run alone (lib/stats/effect.h): one unit per round (a "
		     "fresh boot; the gmem ratios pair the round's two boots), "
		     "the log of the per-round ratios fitted by least squares "
		     "on covariates of the run's order, each kept only while "
		     "the residual df stays >= 3 (ci95_covariates): without a "
		     "design the round's number (a drift along the run, "
		     "estimated at its middle) and its parity (which kernel, "
		     "mode and phase ran first alternate by round); with make "
		     "bench's design, for inplace/destructive the boot's time "
		     "along the run (order inside a boot cancels in its ABBA "
		     "blocks), against gmem the round's time and its kernel "
		     "order; "
		     "exp(intercept -/+ t(ci95_df) se), ci95_df = rounds - 1 - "
		     "covariates. With the covariates centred the intercept is "
		     "the geometric mean of the per-round ratios. joint_ci95: "
		     "the same at 1 - 0.05/joint_family, so that all the run's "
		     "estimated p50 ratios hold at once; inplace/gmem is the "
		     "quotient of two of them (derived) and not counted. No "
		     "earlier run enters any interval: under TCG a ratio "
		     "belongs to the host and the minutes it ran in; "
		     "earlier_runs (--history) are listed for repeatability "
		     "only. A cell's p50 interval is the t interval over this "
		     "run's rounds; rounds, not samples, are the independent "
		     "units");
	jsonw_kv_u64(w, "tail_min_beyond", STATS_TAIL_MIN);
	jsonw_kv_str(w, "percentiles", "numpy 'linear' over the pooled "
		     "samples; X_beyond: samples strictly above X");
	jsonw_obj_close(w);
}

static void json_rounds(struct jsonw *w, const struct report *r)
{
	size_t i;

	jsonw_key(w, "rounds");
	jsonw_arr_open(w);
	for (i = 0; i < r->nrounds; i++) {
		const struct report_round *x = &r->rounds[i];

		jsonw_obj_open(w);
		jsonw_kv_u64(w, "round", x->round);
		jsonw_kv_str(w, "order", x->order);
		jsonw_kv_bool(w, "valid", !x->invalid);
		jsonw_kv_str(w, "invalid_why", x->invalid ? x->why : NULL);
		if (x->clock_unchecked) {
			jsonw_key(w, "clock");
			jsonw_obj_open(w);
			jsonw_kv_bool(w, "checked", false);
			jsonw_kv_str(w, "unchecked_why", x->why);
			jsonw_obj_close(w);
		} else if (x->tsc_khz > 0) {
			jsonw_key(w, "clock");
			jsonw_obj_open(w);
			jsonw_kv_bool(w, "checked", true);
			jsonw_kv_double(w, "tsc_khz", x->tsc_khz);
			jsonw_kv_double(w, "tsc_khz_measured",
					x->tsc_khz_measured);
			jsonw_kv_double(w, "deviation_pct", x->clock_dev_pct);
			jsonw_kv_str(w, "clocksource", x->clocksource);
			jsonw_kv_str(w, "tsc_messages", x->tsc_messages[0] ?
				     x->tsc_messages : NULL);
			jsonw_obj_close(w);
		}
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

int summary_write(FILE *f, const struct report *r,
		  const struct run_stats *rs)
{
	struct jsonw w;
	unsigned int i;
	size_t k;

	jsonw_init(&w, f);
	jsonw_obj_open(&w);
	jsonw_key(&w, "provenance");
	jsonw_obj_open(&w);
	if (r->provenance) {
		/* a boot's (--merge), with each boot's measured TSC rate */
		for (k = 0; k < r->provenance->n &&
		     r->provenance->type == JV_OBJ; k++) {
			jsonw_key(&w, r->provenance->keys[k]);
			jv_write(&w, &r->provenance->items[k]);
		}
		jsonw_key(&w, "tsc_khz_measured_per_boot");
		jsonw_arr_open(&w);
		for (k = 0; k < r->nrounds; k++)
			jsonw_double(&w, r->rounds[k].tsc_khz_measured > 0 ?
				     r->rounds[k].tsc_khz_measured : NAN);
		jsonw_arr_close(&w);
	} else {
		provenance_write(&w, r->env);
	}
	jsonw_obj_close(&w);
	json_method(&w, r);
	json_rounds(&w, r);
	jsonw_key(&w, "unavailable");
	jsonw_obj_open(&w);
	for (i = 0; i < r->nnotes; i++)
		jsonw_kv_str(&w, r->notes[i].what, r->notes[i].why);
	jsonw_obj_close(&w);
	jsonw_key(&w, "cells");
	jsonw_arr_open(&w);
	for (k = 0; k < rs->ncells; k++)
		json_cell(&w, r, &rs->cells[k]);
	jsonw_arr_close(&w);
	jsonw_key(&w, "ratios_inplace_over_destructive");
	jsonw_arr_open(&w);
	for (k = 0; k < rs->nratios; k++)
		summary_json_ratio(&w, &rs->ratios[k]);
	jsonw_arr_close(&w);
	for (i = 0; i < r->nextra; i++) {
		if (!r->extra[i].json)
			continue;
		jsonw_key(&w, r->extra[i].key);
		r->extra[i].json(&w, r->extra[i].arg);
	}
	jsonw_obj_close(&w);
	return jsonw_finish(&w) ? -EIO : 0;
}
