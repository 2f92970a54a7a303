// SPDX-License-Identifier: GPL-2.0
/* --workload=io's host device thread: see io_device.h */
#include <errno.h>
#include <string.h>

#include "guest_churn.h"
#include "io_device.h"

/* one request: every word read and checked, then every word answered */
static void serve(struct io_device *d)
{
	uint64_t npages = d->len / GUEST_CONV_PAGE, p, i, want;
	const uint64_t words = GUEST_CONV_PAGE / 8;

	d->err = 0;
	for (p = 0; p < npages && !d->err; p++) {
		want = io_word(d->op, p, 0);
		for (i = 0; i < words; i++)
			if (d->data[p * words + i] != want) {
				d->err = -EIO;
				d->bad = (struct io_bad) {
					.gpa = d->gpa + (p * words + i) * 8,
					.got = d->data[p * words + i],
					.want = want,
				};
				break;
			}
	}
	if (d->err)
		return;
	for (p = 0; p < npages; p++) {
		want = io_word(d->op, p, 1);
		for (i = 0; i < words; i++)
			d->data[p * words + i] = want;
	}
	/* the guest must find this one */
	if (d->op == d->bad_op)
		d->data[words + 3 < npages * words ? words + 3 : 3] ^= 0x10000;
}

static void *device_main(void *arg)
{
	struct io_device *d = arg;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		while (d->served == d->asked && !d->quit)
			pthread_cond_wait(&d->cond, &d->lock);
		if (d->served == d->asked)
			break;
		/* the requester sleeps until served: the fields are ours */
		pthread_mutex_unlock(&d->lock);
		serve(d);
		pthread_mutex_lock(&d->lock);
		d->served++;
		pthread_cond_broadcast(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int io_device_start(struct io_device *d, uint64_t bad_op)
{
	int r;

	memset(d, 0, sizeof(*d));
	d->bad_op = bad_op;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	r = pthread_create(&d->thread, NULL, device_main, d);
	if (r) {
		pthread_mutex_destroy(&d->lock);
		pthread_cond_destroy(&d->cond);
		return -r;
	}
	d->started = true;
	return 0;
}

int io_device_request(struct io_device *d, void *data, uint64_t gpa,
		      uint64_t len, uint64_t op, struct io_bad *bad)
{
	int err;

	pthread_mutex_lock(&d->lock);
	/* another vCPU's request first, until its answer is read */
	while (d->busy)
		pthread_cond_wait(&d->cond, &d->lock);
	d->busy = true;
	d->data = data;
	d->gpa = gpa;
	d->len = len;
	d->op = op;
	d->asked++;
	pthread_cond_broadcast(&d->cond);
	while (d->served != d->asked)
		pthread_cond_wait(&d->cond, &d->lock);
	err = d->err;
	if (err && bad)
		*bad = d->bad;
	/* the next requester may go */
	d->busy = false;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
	return err;
}

void io_device_stop(struct io_device *d)
{
	if (!d->started)
		return;
	pthread_mutex_lock(&d->lock);
	d->quit = true;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
	d->started = false;
}
