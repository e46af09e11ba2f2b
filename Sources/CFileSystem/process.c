#define _GNU_SOURCE
#include "CFileSystem.h"
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int marquee_flock(int fd, int exclusive, int wait) {
  int op = exclusive ? LOCK_EX : LOCK_SH;
  if (!wait) op |= LOCK_NB;
  int status;
  do {
    status = flock(fd, op);
  } while (status != 0 && errno == EINTR);
  return status;
}

int marquee_funlock(int fd) {
  int status;
  do {
    status = flock(fd, LOCK_UN);
  } while (status != 0 && errno == EINTR);
  return status;
}

int marquee_is_would_block(int error) {
  return error == EWOULDBLOCK || error == EAGAIN;
}

void marquee_ignore_write_signals(void) {
  signal(SIGXFSZ, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
}

void marquee_keep_freed_buffers(void) {
#ifdef M_MMAP_THRESHOLD
  mallopt(M_MMAP_THRESHOLD, 8 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int marquee_process_exists(int pid) {
  if (pid <= 0) return 0;
  if (kill(pid, 0) == 0) return 1;
  return errno == EPERM;
}

void marquee_kill_self(void) {
  kill(getpid(), SIGKILL);
}

int marquee_stat_identity(const char *path, long long out[6]) {
  struct stat st;
  if (stat(path, &st) != 0) return -1;
  out[0] = (long long)st.st_dev;
  out[1] = (long long)st.st_ino;
  out[2] = (long long)st.st_size;
  out[3] = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  out[4] = (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
  out[5] = (long long)st.st_nlink;
  return 0;
}
