// Entry point of the engine's doctest suite (native, sanitizers and WASM).
// Each engine area has its own test_*.cpp file next to this one.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
