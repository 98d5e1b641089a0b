// The sanitizers' settings for the test binary (sanitized build, CMake's CSIM_SANITIZE),
// compiled in so that every way of running the tests uses them. Only leaks inside
// third-party libraries are suppressed, each with the reason; a leak of csim's is a bug.

#include "engine/common/sanitizers.h"

#if CSIM_ADDRESS_SANITIZER

// fast_unwind_on_malloc=0: the frame-pointer unwinder stops at the first frame of
// libhdf5 (built without frame pointers), one unnamed function, so a suppression could
// name nothing narrower than the whole library. The full unwinder names the functions,
// at the cost of a slower malloc (results/sanitizers.md).
extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0"; }

// H5FL_reg_malloc: HDF5's free lists hand out blocks for its own structures (object
// headers and the like), never to the caller. HDF5 1.10.8 loses one, the object header it
// was decoding, when a reader's checksum check fails on a corrupt file
// (tests/io/hdf5_recorder_test.cc, "DescribeRun of a corrupt file"). Since the lists
// recycle blocks, the allocation LSan shows is the block's first use, often the writer's.
extern "C" const char* __lsan_default_suppressions() { return "leak:H5FL_reg_malloc\n"; }

#endif
