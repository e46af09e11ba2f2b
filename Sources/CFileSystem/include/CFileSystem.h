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

/// Keeps picture-sized buffers in the heap once freed (glibc `mallopt`):
/// blocks up to 8 MiB are never given their own mmap, and up to 64 MiB of
/// free heap top is kept rather than returned to the kernel. By default
/// glibc maps a block above its dynamic threshold (128 KiB at first) with
/// fresh pages that the kernel zero-fills on first touch and unmaps on
/// free; the image stages allocate and free many full-picture buffers
/// (a 1170x658 RGBA picture is 3 MiB), so each one paid those page faults
/// again. No effect where the C library is not glibc.
void marquee_keep_freed_buffers(void);

/// Whether a process with this id exists (`kill(pid, 0)`).
int marquee_process_exists(int pid);

/// Sends SIGKILL to the calling process (crash-point testing only).
void marquee_kill_self(void);

/// `stat(path)`: fills device, inode, size, mtime (ns), ctime (ns) and link
/// count into `out`. Returns 0, or -1 with errno set.
int marquee_stat_identity(const char *path, long long out[6]);

/// `fstat(fd)`: fills device, inode, size, mtime (ns), ctime (ns), link
/// count, the file type bits (`st_mode & S_IFMT`) and the owner's uid into
/// `out`. Returns 0, or -1 with errno set.
int marquee_fstat_identity(int fd, long long out[8]);

/// `lstat(path)` (a symbolic link is described, not followed), filling
/// `out` as `marquee_fstat_identity` does. Returns 0, or -1 with errno set.
int marquee_lstat_identity(const char *path, long long out[8]);

/// The `S_IFMT` values, for comparing `marquee_fstat_identity`'s type.
int marquee_type_regular(void);
int marquee_type_directory(void);
int marquee_type_link(void);

/// Opens a file for reading without blocking on it: `open(path, O_RDONLY |
/// O_NONBLOCK | O_NOCTTY | O_CLOEXEC)`, plus `O_NOFOLLOW` when `nofollow`.
/// O_NONBLOCK makes the open of a FIFO return at once instead of waiting
/// for a writer (the caller then refuses it by its `fstat` type); reads of
/// a regular file ignore the flag. Returns the descriptor, or -1 with
/// errno set (ELOOP for a link with `nofollow`).
int marquee_open_for_reading(const char *path, int nofollow);

/// Opens `relative` under the folder `root`, following no symbolic link
/// inside `relative`: each folder on the way is opened with `O_NOFOLLOW |
/// O_DIRECTORY` relative to the one before (`openat`), and the last
/// component with `flags | O_NOFOLLOW | O_CLOEXEC` (and `mode` when
/// creating). `root` itself is followed if it is a link (the caller chose
/// it). Components that are empty, `.` or `..` are refused with EINVAL, so
/// the result is always inside `root`. When `directories` is non-zero,
/// missing folders on the way are created (mode 0755). Returns the
/// descriptor, or -1 with errno set (ELOOP or ENOTDIR for a link).
int marquee_open_beneath(const char *root, const char *relative, int flags, int mode, int directories);

/// Like `marquee_open_beneath`, but describes the last component with
/// `fstatat(AT_SYMLINK_NOFOLLOW)` instead of opening it (a link at the end
/// is described as a link). Returns 0, or -1 with errno set.
int marquee_lstat_beneath(const char *root, const char *relative, long long out[8]);

/// Creates the folder `name` in the folder `dirfd` if it is missing and
/// opens it with `O_DIRECTORY | O_NOFOLLOW`. Returns the descriptor, or -1
/// with errno set: ELOOP or ENOTDIR when `name` is a symbolic link or not a
/// folder.
int marquee_open_directory_at(int dirfd, const char *name, int create);

/// `open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)`, following links.
int marquee_open_directory(const char *path);

/// `openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode)`.
int marquee_openat_nofollow(int dirfd, const char *name, int flags, int mode);

/// The `open(2)` flags Swift's Glibc module does not always import.
int marquee_flag_nofollow(void);
int marquee_flag_nonblock(void);

#endif
