#define _GNU_SOURCE
#include "CFileSystem.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void fill_identity(const struct stat *st, long long out[8]) {
  out[0] = (long long)st->st_dev;
  out[1] = (long long)st->st_ino;
  out[2] = (long long)st->st_size;
  out[3] = (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
  out[4] = (long long)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec;
  out[5] = (long long)st->st_nlink;
  out[6] = (long long)(st->st_mode & S_IFMT);
  out[7] = (long long)st->st_uid;
}

int marquee_fstat_identity(int fd, long long out[8]) {
  struct stat st;
  if (fstat(fd, &st) != 0) return -1;
  fill_identity(&st, out);
  return 0;
}

int marquee_lstat_identity(const char *path, long long out[8]) {
  struct stat st;
  if (lstat(path, &st) != 0) return -1;
  fill_identity(&st, out);
  return 0;
}

int marquee_type_regular(void) { return S_IFREG; }
int marquee_type_directory(void) { return S_IFDIR; }
int marquee_type_link(void) { return S_IFLNK; }
int marquee_flag_nofollow(void) { return O_NOFOLLOW; }
int marquee_flag_nonblock(void) { return O_NONBLOCK; }

int marquee_open_for_reading(const char *path, int nofollow) {
  int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  if (nofollow) flags |= O_NOFOLLOW;
  int fd;
  do {
    fd = open(path, flags);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

int marquee_open_directory(const char *path) {
  int fd;
  do {
    fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

int marquee_open_directory_at(int dirfd, const char *name, int create) {
  if (create && mkdirat(dirfd, name, 0755) != 0 && errno != EEXIST) return -1;
  int fd;
  do {
    fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

int marquee_openat_nofollow(int dirfd, const char *name, int flags, int mode) {
  int fd;
  do {
    fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

/// Walks `relative` under `root`: returns the descriptor of the folder that
/// holds the last component and copies that component into `last` (at
/// least strlen(relative) + 1 bytes), or -1 with errno set.
static int walk_to_parent(const char *root, const char *relative, char *last, int directories) {
  if (relative == NULL || *relative == '\0') {
    errno = EINVAL;
    return -1;
  }
  int dir = marquee_open_directory(root);
  if (dir < 0) return -1;
  const char *p = relative;
  for (;;) {
    const char *slash = strchr(p, '/');
    size_t length = slash ? (size_t)(slash - p) : strlen(p);
    if (length == 0 || (length == 1 && p[0] == '.') || (length == 2 && p[0] == '.' && p[1] == '.')) {
      close(dir);
      errno = EINVAL;
      return -1;
    }
    memcpy(last, p, length);
    last[length] = '\0';
    if (!slash) return dir;
    int next = marquee_open_directory_at(dir, last, directories);
    int saved = errno;
    close(dir);
    if (next < 0) {
      errno = saved;
      return -1;
    }
    dir = next;
    p = slash + 1;
  }
}

int marquee_open_beneath(const char *root, const char *relative, int flags, int mode, int directories) {
  char *last = malloc(strlen(relative ? relative : "") + 1);
  if (!last) {
    errno = ENOMEM;
    return -1;
  }
  int dir = walk_to_parent(root, relative, last, directories);
  if (dir < 0) {
    int saved = errno;
    free(last);
    errno = saved;
    return -1;
  }
  int fd = marquee_openat_nofollow(dir, last, flags, mode);
  int saved = errno;
  close(dir);
  free(last);
  errno = saved;
  return fd;
}

int marquee_lstat_beneath(const char *root, const char *relative, long long out[8]) {
  char *last = malloc(strlen(relative ? relative : "") + 1);
  if (!last) {
    errno = ENOMEM;
    return -1;
  }
  int dir = walk_to_parent(root, relative, last, 0);
  if (dir < 0) {
    int saved = errno;
    free(last);
    errno = saved;
    return -1;
  }
  struct stat st;
  int status = fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW);
  int saved = errno;
  close(dir);
  free(last);
  if (status != 0) {
    errno = saved;
    return -1;
  }
  fill_identity(&st, out);
  return 0;
}
