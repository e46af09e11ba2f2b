#ifndef MARQUEE_CFILESYSTEM_H
#define MARQUEE_CFILESYSTEM_H

/// Atomically swaps two paths on the same file system
/// (Linux `renameat2(…, RENAME_EXCHANGE)`). Returns 0 on success, or -1 with
/// errno set (EINVAL or ENOSYS where the kernel or file system lacks it).
int marquee_rename_exchange(const char *a, const char *b);

#endif
