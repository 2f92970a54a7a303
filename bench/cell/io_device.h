/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --workload=io's host "device": a thread that serves the guests'
 * requests as a virtio backend would, through the host's view of the
 * guest's shared memory. It reads every word the guest sent (each must
 * be io_word(op, page, 0), guest_churn.h) and writes the answer
 * (io_word(op, page, 1)). A vCPU thread hands it a request and sleeps
 * until it is served; requests from several vCPUs are served in turn.
 */
#ifndef CONVBENCH_IO_DEVICE_H
#define CONVBENCH_IO_DEVICE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* a wrong word the device read: where (gpa), what it held, what it should */
struct io_bad {
	uint64_t gpa, got, want;
};

struct io_device {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started, quit;
	bool busy;		/* a request handed over, its answer unread */
	uint64_t asked, served;	/* requests handed over, served */
	/* the request being served */
	volatile uint64_t *data;
	uint64_t gpa, len, op;
	int err;		/* 0, or -EIO: bad says where */
	struct io_bad bad;
	/* --inject=io-host@K: answer request K with a wrong word */
	uint64_t bad_op;
};

/* the thread started: 0 or -errno */
int io_device_start(struct io_device *d, uint64_t bad_op);
/*
 * request op: len bytes at data (the host's view of gpa), served before
 * it returns; 0, or -EIO with *bad naming the first wrong word sent
 */
int io_device_request(struct io_device *d, void *data, uint64_t gpa,
		      uint64_t len, uint64_t op, struct io_bad *bad);
/* the thread stopped and joined (a no-op when it never started) */
void io_device_stop(struct io_device *d);

#endif /* CONVBENCH_IO_DEVICE_H */
