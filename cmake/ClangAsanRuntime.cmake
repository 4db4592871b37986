# clang's shared ASan runtime, for the sanitizer build (NDS_SANITIZE with
# clang) and the fuzz build (fuzz/flags.cmake). With clang, -fsanitize=address
# links the runtime statically into programs only, so the plugins (shared
# libraries linked with -z defs) could not resolve __asan_* and __ubsan_*:
# every target links -shared-libasan instead, one runtime per process, found
# through an rpath. Sets NDS_CLANG_ASAN_RUNTIME_DIR and adds the link options.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
                OUTPUT_VARIABLE _nds_asan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT EXISTS "${_nds_asan_runtime}")
  message(FATAL_ERROR "clang's ASan runtime was not found (${_nds_asan_runtime}); "
                      "install libclang-rt-14-dev (scripts/setup.sh)")
endif()
get_filename_component(NDS_CLANG_ASAN_RUNTIME_DIR "${_nds_asan_runtime}" DIRECTORY)
add_link_options(-fsanitize=address,undefined -shared-libasan
                 "LINKER:-rpath,${NDS_CLANG_ASAN_RUNTIME_DIR}")
