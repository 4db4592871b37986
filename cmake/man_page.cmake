# Writes the man page ndsearch.1 from the program's own --help (cmake -P):
# help2man reads `ndsearch --help` and `--version` for NAME, SYNOPSIS,
# OPTIONS, the verbs and EXAMPLES, and this script adds a COMMANDS section
# with each verb's own --help (its sub-verbs' too), an ENVIRONMENT section
# and SEE ALSO. Inputs: NDSEARCH (the built program), HELP2MAN, OUTPUT, WORK_DIR.
foreach(var NDSEARCH HELP2MAN OUTPUT WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "man_page.cmake: -D${var}=... is required")
  endif()
endforeach()

# The help text of `ndsearch WORDS --help`; stops the build when it fails.
function(help_of words out_var)
  execute_process(COMMAND ${NDSEARCH} ${words} --help RESULT_VARIABLE rc OUTPUT_VARIABLE text
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${words}")
    message(FATAL_ERROR "`ndsearch ${shown} --help` failed (${rc}): ${err}")
  endif()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# The verbs a help text lists under "Subcommands:" (CLI11's form: the name
# at two spaces' indent, then its description).
function(verbs_of help out_var)
  set(verbs)
  string(REGEX MATCH "[Ss][Uu][Bb][Cc][Oo][Mm][Mm][Aa][Nn][Dd][Ss]:\n(  [^\n]*\n)+" block "${help}")
  string(REGEX MATCHALL "\n  [a-z][a-z0-9-]*" names "${block}")
  foreach(n ${names})
    string(STRIP "${n}" n)
    list(APPEND verbs ${n})
  endforeach()
  set(${out_var} ${verbs} PARENT_SCOPE)
endfunction()

# Help text as roff, verbatim: backslashes escaped, a line that starts with
# a period or an apostrophe (a roff request) guarded.
function(roff_verbatim text out_var)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out_var} ".nf\n${text}\n.fi\n" PARENT_SCOPE)
endfunction()

help_of("" top)
verbs_of("${top}" verbs)
if(NOT verbs)
  message(FATAL_ERROR "man_page.cmake: `ndsearch --help` lists no verbs under \"Subcommands:\"")
endif()

set(include "[COMMANDS]\nEach verb takes the global options above as well; \\fBndsearch\\fR \\fIVERB\\fR \\fB\\-\\-help\\fR prints what follows.\n")
foreach(verb ${verbs})
  help_of("${verb}" text)
  roff_verbatim("${text}" roff)
  string(APPEND include ".SS \"ndsearch ${verb}\"\n${roff}")
  verbs_of("${text}" subverbs)
  foreach(sub ${subverbs})
    help_of("${verb};${sub}" subtext)
    roff_verbatim("${subtext}" subroff)
    string(APPEND include ".SS \"ndsearch ${verb} ${sub}\"\n${subroff}")
  endforeach()
endforeach()
# The program's examples as written, one per line (help2man would fill them
# into one paragraph).
string(FIND "${top}" "\nExamples:\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "man_page.cmake: `ndsearch --help` has no \"Examples:\" footer")
endif()
math(EXPR at "${at} + 11")
string(SUBSTRING "${top}" ${at} -1 examples)
string(REGEX REPLACE "[ \n]+$" "" examples "${examples}")
roff_verbatim("${examples}" examples_roff)
string(APPEND include "[=EXAMPLES]\n${examples_roff}")
string(APPEND include
  "[ENVIRONMENT]\n"
  ".TP\n.B NDS_PLUGIN_PATH\nColon-separated directories searched for plugins after \\fB\\-\\-plugin\\-path\\fR.\n"
  ".TP\n.B NDS_DEVICE_PATH\nColon-separated directories whose *.toml device files describe more devices.\n"
  ".TP\n.B NDS_CONFIG_MAX_BYTES\nThe largest config file read (default 16 MiB).\n"
  ".TP\n.B NDS_PLUGIN_VET\nThe plugin vetting helper to run instead of the installed ndsearch\\-plugin\\-vet.\n"
  ".TP\n.B XDG_CACHE_HOME\nWhere plugin vetting verdicts are kept (ndsearch/plugin\\-verdicts; default ~/.cache).\n"
  "[SEE ALSO]\n"
  "docs/cli.md in the source tree: every verb, flag, JSON key, check, search bound and error id; "
  "docs/device-toml.md: device files; docs/plugin-guide.md: writing plugins.\n")

file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${WORK_DIR}/ndsearch.h2m "${include}")
get_filename_component(out_dir ${OUTPUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})
execute_process(
  COMMAND ${HELP2MAN} --no-info --section=1
          "--name=finds the fastest hybrid-parallel strategy to train a large language model"
          --include=${WORK_DIR}/ndsearch.h2m --output=${OUTPUT} ${NDSEARCH}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUTPUT})
  message(FATAL_ERROR "help2man failed (${rc}): ${err}")
endif()
