// The allocation counter itself, in both builds: its replacement malloc (normal build) or
// ASan's allocation hooks (sanitized build) must see every kind of allocation, or the
// tests that a hot path does not allocate would pass on a count that never moves.

#include "tests/support/allocation_counter.h"

#include <catch2/catch.hpp>

#include <cstdlib>

namespace csim {
namespace {

TEST_CASE("the allocation counter counts malloc and calloc and realloc and operator new",
          "[allocation]") {
  const std::size_t before = testing::AllocationCount();
  // volatile: the calls must happen (a compiler may drop an allocation it can see unused).
  void* volatile a = std::malloc(64);
  void* volatile b = std::calloc(8, 8);
  void* volatile c = std::realloc(a, 4096);
  int* volatile d = new int(1);
  const std::size_t counted = testing::AllocationCount() - before;
  delete d;
  std::free(c);
  std::free(b);
  CHECK(counted == 4);
}

}  // namespace
}  // namespace csim
