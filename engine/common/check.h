#pragma once
// Always-on invariant checks. A failed check is a bug in csim, not bad input: it prints
// the file, line and condition and aborts (CONTRIBUTING.md §8). Bad input is reported with
// InputError; numerical failure at run time with StepStatus.

#include <cstdio>
#include <cstdlib>

#define CSIM_CHECK(cond)                                                              \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "%s:%d: internal error: check failed: %s\n", __FILE__,     \
                   __LINE__, #cond);                                                  \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)
