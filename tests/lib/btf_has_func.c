// SPDX-License-Identifier: GPL-2.0
/*
 * btf_has_func [-f BTF_FILE] NAME...
 *
 * Is each NAME a BTF_KIND_FUNC in the kernel's BTF (default
 * /sys/kernel/btf/vmlinux)? A plain string search is not enough: a name
 * can sit in the string table (a member, a variable) while the function
 * itself has no BTF entry, e.g. when it was inlined, and then fentry
 * cannot attach. bpftool is not in the VM, so this walks the type
 * section itself.
 *
 * Prints "NAME: func", "NAME: string only" or "NAME: missing" per name.
 * Exit 0 if all are functions, 1 if not, 2 if the BTF cannot be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>

static char *read_all(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (n == cap) {
			char *bigger = realloc(buf, cap *= 2);

			if (!bigger) {
				r = -1;
				break;
			}
			buf = bigger;
		}
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* Bytes that follow struct btf_type for this kind, or -1 if unknown */
static long extra_size(const struct btf_type *t)
{
	unsigned int vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		return sizeof(__u32);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	default:
		return -1;
	}
}

static int in_strings(const char *strs, size_t len, const char *name)
{
	size_t off = 0, n = strlen(name);

	while (off < len) {
		size_t l = strnlen(strs + off, len - off);

		if (l == n && !memcmp(strs + off, name, n))
			return 1;
		off += l + 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = "/sys/kernel/btf/vmlinux";
	const struct btf_header *h;
	const char *types, *strs;
	int i, first = 1, missing = 0;
	char *found;
	size_t len, off;
	char *btf;

	if (argc > 2 && !strcmp(argv[1], "-f")) {
		path = argv[2];
		first = 3;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: %s [-f BTF_FILE] NAME...\n", argv[0]);
		return 2;
	}
	btf = read_all(path, &len);
	h = (const void *)btf;
	if (!btf || len < sizeof(*h) || h->magic != BTF_MAGIC ||
	    (size_t)h->hdr_len + h->type_off + h->type_len > len ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > len) {
		fprintf(stderr, "%s: cannot read BTF: %s\n", path,
			btf ? "bad header" : strerror(errno));
		return 2;
	}
	types = btf + h->hdr_len + h->type_off;
	strs = btf + h->hdr_len + h->str_off;
	found = calloc(argc, 1);
	if (!found)
		return 2;

	for (off = 0; off + sizeof(struct btf_type) <= h->type_len;) {
		const struct btf_type *t = (const void *)(types + off);
		long extra = extra_size(t);

		if (extra < 0) {
			fprintf(stderr, "%s: unknown BTF kind %u at offset %zu\n",
				path, BTF_INFO_KIND(t->info), off);
			return 2;
		}
		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
		    t->name_off < h->str_len)
			for (i = first; i < argc; i++)
				if (!strcmp(strs + t->name_off, argv[i]))
					found[i] = 1;
		off += sizeof(*t) + extra;
	}

	for (i = first; i < argc; i++) {
		const char *what = found[i] ? "func" :
			in_strings(strs, h->str_len, argv[i]) ? "string only" :
			"missing";

		printf("%s: %s\n", argv[i], what);
		missing += !found[i];
	}
	return missing ? 1 : 0;
}
