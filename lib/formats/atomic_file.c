// SPDX-License-Identifier: GPL-2.0
/* Write-to-temp-then-rename results files (see atomic_file.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "atomic_file.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* directory part of path ("." if none) into buf */
static int dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash) {
		snprintf(buf, size, ".");
		return 0;
	}
	n = slash == path ? 1 : (size_t)(slash - path);	/* keep "/" */
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return 0;
}

int atomic_file_open(const char *path, unsigned int flags,
		     struct atomic_file *af)
{
	const char *slash = strrchr(path, '/'), *base;
	struct stat st;
	int fd, n;

	memset(af, 0, sizeof(*af));
	base = slash ? slash + 1 : path;
	if (!*base)
		return -EISDIR;
	if (strlen(path) >= sizeof(af->path))
		return -ENAMETOOLONG;
	/* fail before the caller spends a whole run on the results */
	if (!(flags & ATOMIC_FILE_REPLACE) && !lstat(path, &st))
		return -EEXIST;
	/* same directory, so rename() cannot cross file systems */
	n = snprintf(af->tmp_path, sizeof(af->tmp_path), "%.*s.%s.XXXXXX",
		     (int)(base - path), path, base);
	if (n < 0 || (size_t)n >= sizeof(af->tmp_path)) {
		af->tmp_path[0] = '\0';
		return -ENAMETOOLONG;
	}
	fd = mkstemp(af->tmp_path);
	if (fd < 0) {
		af->tmp_path[0] = '\0';
		return -errno;
	}
	/* mkstemp makes 0600; results are for reading; no exec children */
	if (fchmod(fd, 0644) || fcntl(fd, F_SETFD, FD_CLOEXEC))
		goto fail;
	af->f = fdopen(fd, "w");
	if (!af->f)
		goto fail;
	strcpy(af->path, path);
	af->flags = flags;
	return 0;

fail:
	n = -errno;
	close(fd);
	unlink(af->tmp_path);
	af->tmp_path[0] = '\0';
	return n;
}

static int publish(struct atomic_file *af)
{
	if (af->flags & ATOMIC_FILE_REPLACE)
		return rename(af->tmp_path, af->path) ? -errno : 0;
#ifdef SYS_renameat2
	if (!syscall(SYS_renameat2, AT_FDCWD, af->tmp_path, AT_FDCWD,
		     af->path, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
#endif
	/* no RENAME_NOREPLACE here: link() refuses an existing name too */
	if (link(af->tmp_path, af->path))
		return -errno;
	unlink(af->tmp_path);
	return 0;
}

/* the rename is only durable once the directory is synced */
static int sync_dir(const char *path)
{
	char dir[PATH_MAX];
	int fd, err;

	err = dir_of(path, dir, sizeof(dir));
	if (err)
		return err;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fsync(fd) ? -errno : 0;
	close(fd);
	return err;
}

int atomic_file_commit(struct atomic_file *af)
{
	int err = 0;

	if (af->f) {
		if (fflush(af->f) || fsync(fileno(af->f)))
			err = -errno;
		else if (ferror(af->f))
			err = -EIO;
		if (fclose(af->f) && !err)
			err = -errno;
		af->f = NULL;
		if (err) {
			/* the data is not safe: publish nothing */
			atomic_file_abort(af);
			return err;
		}
	}
	if (!af->tmp_path[0])
		return -EINVAL;
	err = publish(af);
	if (err)
		return err;	/* temp file kept, see atomic_file.h */
	af->tmp_path[0] = '\0';
	return sync_dir(af->path);
}

void atomic_file_abort(struct atomic_file *af)
{
	if (af->f) {
		fclose(af->f);
		af->f = NULL;
	}
	if (af->tmp_path[0]) {
		unlink(af->tmp_path);
		af->tmp_path[0] = '\0';
	}
}
