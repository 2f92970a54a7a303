// SPDX-License-Identifier: GPL-2.0
/* KVM binary statistics by name: see kvm_stats.h */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/kvm.h>

#include "kvm_stats.h"

/* 6.1's <linux/kvm.h> has these; older system headers may not */
#ifndef KVM_GET_STATS_FD
#define KVM_GET_STATS_FD	_IO(KVMIO, 0xce)
#endif

void kvm_stats_close(struct kvm_stats *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->names);
	free(s->offset);
	free(s->size);
	free(s->data);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

int kvm_stats_open(struct kvm_stats *s, int vm_or_vcpu_fd)
{
	struct kvm_stats_header hdr;
	struct kvm_stats_desc *desc = NULL;
	size_t desc_size;
	uint64_t max_end = 0;
	unsigned int i;
	int r = 0;

	memset(s, 0, sizeof(*s));
	s->fd = ioctl(vm_or_vcpu_fd, KVM_GET_STATS_FD, NULL);
	if (s->fd < 0) {
		r = -errno;
		s->fd = -1;
		return r;
	}
	if (pread(s->fd, &hdr, sizeof(hdr), 0) != sizeof(hdr)) {
		r = -EIO;
		goto fail;
	}
	s->num = hdr.num_desc;
	s->data_offset = hdr.data_offset;
	desc_size = sizeof(*desc) + hdr.name_size;
	desc = calloc(s->num ? s->num : 1, desc_size);
	s->names = calloc(s->num ? s->num : 1, sizeof(*s->names));
	s->offset = calloc(s->num ? s->num : 1, sizeof(*s->offset));
	s->size = calloc(s->num ? s->num : 1, sizeof(*s->size));
	if (!desc || !s->names || !s->offset || !s->size) {
		r = -ENOMEM;
		goto fail;
	}
	if (pread(s->fd, desc, desc_size * s->num, hdr.desc_offset) !=
	    (ssize_t)(desc_size * s->num)) {
		r = -EIO;
		goto fail;
	}
	for (i = 0; i < s->num; i++) {
		struct kvm_stats_desc *d = (void *)((char *)desc + i * desc_size);
		size_t n = strnlen(d->name, hdr.name_size);

		if (n > sizeof(s->names[i]) - 1)
			n = sizeof(s->names[i]) - 1;
		memcpy(s->names[i], d->name, n);
		s->names[i][n] = 0;
		/* the offset is in bytes from the start of the data block */
		s->offset[i] = d->offset / sizeof(uint64_t);
		s->size[i] = d->size;
		if (d->offset + d->size * sizeof(uint64_t) > max_end)
			max_end = d->offset + d->size * sizeof(uint64_t);
	}
	s->data_size = max_end;
	s->data = calloc(1, max_end ? max_end : sizeof(uint64_t));
	if (!s->data) {
		r = -ENOMEM;
		goto fail;
	}
	free(desc);
	return kvm_stats_read(s);
fail:
	free(desc);
	kvm_stats_close(s);
	return r;
}

int kvm_stats_read(struct kvm_stats *s)
{
	ssize_t n;

	if (s->fd < 0)
		return -EBADF;
	n = pread(s->fd, s->data, s->data_size, s->data_offset);
	if (n < 0)
		return -errno;
	return (uint64_t)n == s->data_size ? 0 : -EIO;
}

int kvm_stats_get(const struct kvm_stats *s, const char *name, uint64_t *val)
{
	unsigned int i;

	for (i = 0; i < s->num; i++) {
		if (strcmp(s->names[i], name))
			continue;
		if (!s->size[i])
			return -ENOENT;
		*val = s->data[s->offset[i]];
		return 0;
	}
	return -ENOENT;
}

uint64_t kvm_stats_value(const struct kvm_stats *s, const char *name)
{
	uint64_t v = 0;

	kvm_stats_get(s, name, &v);
	return v;
}

int kvm_stat_once(int vm_or_vcpu_fd, const char *name, uint64_t *val)
{
	struct kvm_stats s;
	int r = kvm_stats_open(&s, vm_or_vcpu_fd);

	if (!r)
		r = kvm_stats_get(&s, name, val);
	kvm_stats_close(&s);
	return r;
}
