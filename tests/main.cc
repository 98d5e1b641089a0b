// The Catch2 (v2) test runner of csim.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
