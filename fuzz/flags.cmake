# The fuzz build's compile and link flags (-DNDS_FUZZ=ON, clang only; see
# docs/fuzzing.md). Included before the core and the plugins so that all of
# them carry libFuzzer's coverage and ASan + UBSan, not just the harnesses.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "NDS_FUZZ=ON needs clang (libFuzzer): configure a separate build folder with "
                      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++, or run scripts/fuzz.sh")
endif()
# With NDS_SANITIZE the harnesses are replay programs: libFuzzer's driver
# around code with no coverage, so they run the seeds and the regressions under
# the sanitizer build's ASan + UBSan but cannot fuzz (scripts/fuzz.sh refuses
# to). scripts/test.sh builds them so: a fuzz build of its own compiled the
# core a second time, 225 s of the run's 2001 on 2 cores (2026-12-07), and
# coverage in the sanitizer build slowed its tests by 32 to 90 %.
if(NDS_SANITIZE)
  return()
endif()

include(${PROJECT_SOURCE_DIR}/cmake/ClangAsanRuntime.cmake)  # the shared runtime the plugins resolve against

add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer -gline-tables-only)

# scripts/fuzz.sh configures CMAKE_BUILD_TYPE=Fuzz: optimised, with assertions
# kept (Release drops them) and line tables for the sanitizers' stacks.
set(CMAKE_C_FLAGS_FUZZ "-O1" CACHE STRING "C flags of the Fuzz build type")
set(CMAKE_CXX_FLAGS_FUZZ "-O1" CACHE STRING "C++ flags of the Fuzz build type")
