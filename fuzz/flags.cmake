# The fuzz build's compile and link flags (-DNDS_FUZZ=ON, clang only; see
# docs/fuzzing.md). Included before the core and the plugins so that all of
# them carry libFuzzer's coverage and ASan + UBSan, not just the harnesses.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "NDS_FUZZ=ON needs clang (libFuzzer): configure a separate build folder with "
                      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++, or run scripts/fuzz.sh")
endif()
if(NDS_SANITIZE)
  message(FATAL_ERROR "NDS_FUZZ=ON brings its own sanitizers; leave NDS_SANITIZE off")
endif()

include(${PROJECT_SOURCE_DIR}/cmake/ClangAsanRuntime.cmake)  # the shared runtime the plugins resolve against

add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer -gline-tables-only)

# scripts/fuzz.sh configures CMAKE_BUILD_TYPE=Fuzz: optimised, with assertions
# kept (Release drops them) and line tables for the sanitizers' stacks.
set(CMAKE_C_FLAGS_FUZZ "-O1" CACHE STRING "C flags of the Fuzz build type")
set(CMAKE_CXX_FLAGS_FUZZ "-O1" CACHE STRING "C++ flags of the Fuzz build type")
