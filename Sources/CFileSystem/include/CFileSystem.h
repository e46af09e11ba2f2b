#ifndef MARQUEE_CFILESYSTEM_H
#define MARQUEE_CFILESYSTEM_H

/// Atomically swaps two paths on the same file system
/// (Linux `renameat2(…, RENAME_EXCHANGE)`). Returns 0 on success, or -1 with
/// errno set (EINVAL or ENOSYS where the kernel or file system lacks it).
int marquee_rename_exchange(const char *a, const char *b);

/// `flock(fd, LOCK_EX or LOCK_SH [| LOCK_NB])`, retrying EINTR. Returns 0,
/// or -1 with errno set (EWOULDBLOCK when another process holds the lock
/// and `wait` is 0).
int marquee_flock(int fd, int exclusive, int wait);

/// `flock(fd, LOCK_UN)`: releases the lock even while a forked child still
/// shares the descriptor (until its exec closes it).
int marquee_funlock(int fd);

/// Whether `error` is EWOULDBLOCK/EAGAIN.
int marquee_is_would_block(int error);

/// Ignores SIGXFSZ and SIGPIPE, so a write past `ulimit -f` fails with
/// EFBIG and a write to a closed pipe with EPIPE instead of killing the
/// process.
void marquee_ignore_write_signals(void);

/// Whether a process with this id exists (`kill(pid, 0)`).
int marquee_process_exists(int pid);

/// Sends SIGKILL to the calling process (crash-point testing only).
void marquee_kill_self(void);

/// `stat(path)`: fills device, inode, size, mtime (ns), ctime (ns) and link
/// count into `out`. Returns 0, or -1 with errno set.
int marquee_stat_identity(const char *path, long long out[6]);

#endif
