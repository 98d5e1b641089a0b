#pragma once
// What differs between the two test programs that share the compiled test sources: the
// normal csim_tests and, with CMake's CSIM_SANITIZE, the sanitized csim_tests_san
// (tests/CMakeLists.txt). build_variant.cc is compiled once for each.

namespace csim::testing {

/// Path of the csim program built alongside this test program (the sanitized one for the
/// sanitized tests), which the end-to-end tests run.
const char* CsimProgram();

/// True in the sanitized test program, whose csim code runs under AddressSanitizer.
bool UnderAddressSanitizer();

}  // namespace csim::testing
