# The man page is installed with the program and reads as one: `cmake
# --install` puts share/man/man1/ndsearch.1 under the prefix, and groff
# renders it with its NAME, the verbs (each with its own --help), the
# examples and the environment. Inputs: BUILD_DIR, WORK_DIR, GROFF.
include(${CMAKE_CURRENT_LIST_DIR}/../support/install_to_prefix.cmake)

set(page ${prefix}/share/man/man1/ndsearch.1)
if(NOT EXISTS ${page})
  message(FATAL_ERROR "cmake --install did not install ${page}")
endif()
if(NOT GROFF)
  message(FATAL_ERROR "groff was not found to render the man page (scripts/setup.sh installs groff-base)")
endif()
# -Tascii without the escapes of bold and underline, lines long enough not
# to wrap or hyphenate, runs of spaces (justification, indents) as one:
# plain text to search.
run(${GROFF} -man -Tascii -rLL=250n -P-c -P-b -P-u ${page})
string(REGEX REPLACE "[ \t]+" " " text "${last_output}")

set(expected
  "NAME\n ndsearch - finds the fastest hybrid-parallel strategy to train a large language model\n"
  "SYNOPSIS\n ndsearch [OPTIONS] SUBCOMMAND"
  "--plugin-path DIR"
  "COMMANDS"
  "ndsearch eval\n" "ndsearch search\n" "ndsearch explain\n" "ndsearch apply\n"
  "ndsearch compare\n" "ndsearch model\n" "ndsearch hardware\n" "ndsearch plugins\n"
  "ndsearch plugins list\n" "ndsearch plugins check\n"
  "Usage: ndsearch search [OPTIONS] CONFIG"
  "EXAMPLES\n ndsearch search examples/"
  "ENVIRONMENT\n NDS_PLUGIN_PATH"
  "SEE ALSO")
foreach(e IN LISTS expected)
  string(FIND "${text}" "${e}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the rendered man page lacks \"${e}\":\n${text}")
  endif()
endforeach()
message(STATUS "${page}: renders with its NAME, the verbs, EXAMPLES and ENVIRONMENT")
