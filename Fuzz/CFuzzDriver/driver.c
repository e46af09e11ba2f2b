// Header-only: LLVMFuzzerRunDriver is defined by libFuzzer itself.
#include "CFuzzDriver.h"
