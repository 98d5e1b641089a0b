#pragma once
// Counts heap allocations made by this process (malloc, calloc, realloc and operator new,
// which goes through malloc in libstdc++), to test that hot paths do not allocate. Under
// AddressSanitizer the count comes from ASan's allocation hooks (allocation_counter.cc).

#include <cstddef>

namespace csim::testing {

/// Number of heap allocations since the process started.
std::size_t AllocationCount();

}  // namespace csim::testing
