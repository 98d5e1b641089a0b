#include "tests/support/allocation_counter.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "engine/common/sanitizers.h"

// AddressSanitizer owns malloc when it is on: it intercepts the allocation functions and
// must see every block it later frees. A replacement malloc here would take those calls
// from it (and run before ASan has initialised, so the test binary would not start).
// Under ASan the count comes from ASan's own allocation hooks instead, which it calls for
// malloc, calloc, realloc and operator new alike, so the same tests assert the same thing.

#if CSIM_ADDRESS_SANITIZER
// From <sanitizer/allocator_interface.h>, which Clang ships and Debian's GCC does not (its
// libasan exports the function all the same).
extern "C" int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void* p, std::size_t size),
    void (*free_hook)(const volatile void* p));
#endif

namespace {
std::atomic<std::size_t> g_allocations{0};
}

#if CSIM_ADDRESS_SANITIZER

namespace {

void CountMalloc(const volatile void*, std::size_t) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
}

void IgnoreFree(const volatile void*) {}

// Installed during static initialisation, after ASan's own (which runs from the
// executable's preinit array), before any test runs.
const int g_hooks_installed = __sanitizer_install_malloc_and_free_hooks(CountMalloc, IgnoreFree);

}  // namespace

#else

// glibc lets the executable interpose malloc; forward to glibc's own entry points.
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
}

extern "C" void* malloc(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}

extern "C" void* calloc(std::size_t n, std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, size);
}

extern "C" void* realloc(void* p, std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, size);
}

#endif

namespace csim::testing {

std::size_t AllocationCount() {
#if CSIM_ADDRESS_SANITIZER
  // The hooks are a limited resource of ASan's (a few slots); a full table would leave
  // every allocation test passing on a count that never moves.
  if (g_hooks_installed == 0) {
    std::fprintf(stderr, "%s:%d: ASan refused the allocation counter's hooks\n", __FILE__,
                 __LINE__);
    std::abort();
  }
#endif
  return g_allocations.load();
}

}  // namespace csim::testing
