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

# The plugins are shared libraries linked with -z defs: they resolve the
# sanitizer and coverage symbols from ASan's shared runtime, which the
# harnesses load too (one runtime per process), found through an rpath.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
                OUTPUT_VARIABLE _nds_asan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT EXISTS "${_nds_asan_runtime}")
  message(FATAL_ERROR "NDS_FUZZ=ON: clang's ASan runtime was not found (${_nds_asan_runtime}); "
                      "install libclang-rt-14-dev (scripts/setup.sh)")
endif()
get_filename_component(NDS_FUZZ_RUNTIME_DIR "${_nds_asan_runtime}" DIRECTORY)

add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer -gline-tables-only)
add_link_options(-fsanitize=address,undefined -shared-libasan
                 "LINKER:-rpath,${NDS_FUZZ_RUNTIME_DIR}")

# scripts/fuzz.sh configures CMAKE_BUILD_TYPE=Fuzz: optimised, with assertions
# kept (Release drops them) and line tables for the sanitizers' stacks.
set(CMAKE_C_FLAGS_FUZZ "-O1" CACHE STRING "C flags of the Fuzz build type")
set(CMAKE_CXX_FLAGS_FUZZ "-O1" CACHE STRING "C++ flags of the Fuzz build type")
