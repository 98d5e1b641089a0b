#include "tests/support/build_variant.h"

#include "engine/common/sanitizers.h"

namespace csim::testing {

const char* CsimProgram() { return CSIM_TEST_PROGRAM; }

bool UnderAddressSanitizer() { return kAddressSanitizer; }

}  // namespace csim::testing
