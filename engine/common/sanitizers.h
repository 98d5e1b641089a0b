#pragma once
// Whether this program runs under AddressSanitizer: its translation unit is compiled with it,
// or it belongs to CMake's CSIM_SANITIZE build (CSIM_SANITIZE_BUILD), whose programs all link
// ASan's runtime although the test sources are not instrumented (tests/CMakeLists.txt). The
// few places that behave differently under it say why where they test it.

#if defined(CSIM_SANITIZE_BUILD)
#define CSIM_ADDRESS_SANITIZER 1
#elif defined(__SANITIZE_ADDRESS__)  // GCC
#define CSIM_ADDRESS_SANITIZER 1
#elif defined(__has_feature)       // Clang
#if __has_feature(address_sanitizer)
#define CSIM_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef CSIM_ADDRESS_SANITIZER
#define CSIM_ADDRESS_SANITIZER 0
#endif

namespace csim {

inline constexpr bool kAddressSanitizer = CSIM_ADDRESS_SANITIZER;

}  // namespace csim
