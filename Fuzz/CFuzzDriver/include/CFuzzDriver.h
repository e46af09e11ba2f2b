#ifndef MARQUEE_CFUZZDRIVER_H
#define MARQUEE_CFUZZDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for a program with its own `main`
/// (compiler-rt `FuzzerDriver.cpp`): parses libFuzzer's flags from
/// argc/argv and calls `callback` with each input. Linked from
/// `libclang_rt.fuzzer` by `swiftc -sanitize=fuzzer`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
