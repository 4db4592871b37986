// SPDX-License-Identifier: Apache-2.0
// sanitizer_options.cpp: defaults every harness runs with. The plugins are
// shared libraries, so the fuzz build links ASan's shared runtime; libstdc++
// lands before it in the load order, which is harmless here (no allocation
// happens before ASan starts) but trips ASan's link-order check.
extern "C" const char* __asan_default_options() {
  return "verify_asan_link_order=0:detect_leaks=1:strict_string_checks=1";
}

extern "C" const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}
