# Writes synthetic copies of the ABI headers for the compatibility fixtures:
#   MODE=older: each extensible struct loses its last field (a plugin built
#               before that field was appended); NDS_COMPAT_OLDER_HEADER is set.
#   MODE=newer: each extensible struct gains a field and NDS_ABI_MINOR goes up
#               by one (a plugin built for a later minor); NDS_COMPAT_NEWER_HEADER.
# The rule relies on abi/conventions.md: every extensible struct ends with the
# line "  /* Add fields only at the end. */" and its last field on one line.
# Usage: cmake -DSOURCE_DIR=abi/include/ndsearch -DOUTPUT_DIR=... -DMODE=... -P this
set(marker "  /\\* Add fields only at the end\\. \\*/")
file(GLOB headers RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/*.h)
foreach(header IN LISTS headers)
  file(READ ${SOURCE_DIR}/${header} text)
  if(MODE STREQUAL "older")
    string(REGEX REPLACE "\n[^\n]*;[^\n]*\n(${marker})" "\n\\1" text "${text}")
    string(REPLACE "#define NDSEARCH_NDS_ABI_H_INCLUDED"
           "#define NDSEARCH_NDS_ABI_H_INCLUDED\n#define NDS_COMPAT_OLDER_HEADER 1" text "${text}")
  elseif(MODE STREQUAL "newer")
    string(REGEX REPLACE "\n(${marker})" "\n  uint64_t nds_compat_future_field;\n\\1" text "${text}")
    string(REGEX MATCH "#define NDS_ABI_MINOR ([0-9]+)" _ "${text}")
    math(EXPR next_minor "${CMAKE_MATCH_1} + 1")
    string(REGEX REPLACE "#define NDS_ABI_MINOR [0-9]+" "#define NDS_ABI_MINOR ${next_minor}" text "${text}")
    string(REGEX REPLACE "#define NDS_ABI_VERSION_STRING \"([0-9]+)\\.[0-9]+\""
           "#define NDS_ABI_VERSION_STRING \"\\1.${next_minor}\"" text "${text}")
    string(REPLACE "#define NDSEARCH_NDS_ABI_H_INCLUDED"
           "#define NDSEARCH_NDS_ABI_H_INCLUDED\n#define NDS_COMPAT_NEWER_HEADER 1" text "${text}")
  else()
    message(FATAL_ERROR "MODE must be older or newer, not '${MODE}'")
  endif()
  file(WRITE ${OUTPUT_DIR}/ndsearch/${header} "${text}")
endforeach()
