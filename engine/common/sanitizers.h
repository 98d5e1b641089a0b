#pragma once
// Whether this translation unit is compiled with AddressSanitizer (CMake's CSIM_SANITIZE
// builds every target with it and UBSan). The few places that behave differently under
// it say why where they test it.

#if defined(__SANITIZE_ADDRESS__)  // GCC
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
