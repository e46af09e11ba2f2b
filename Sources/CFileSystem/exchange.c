#define _GNU_SOURCE
#include "CFileSystem.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/fs.h>
#endif

int marquee_rename_exchange(const char *a, const char *b) {
#if defined(__linux__) && defined(SYS_renameat2)
  return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
#else
  errno = ENOSYS;
  return -1;
#endif
}
