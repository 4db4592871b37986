# A user's program against an installed ndsearch: install to a prefix,
# configure tests/consumer as a separate project with find_package(ndsearch),
# build it, run it on CONFIG, and check its best strategy and step time
# against the installed CLI's `search` for the same inputs.
# With -DPYTHON=<interpreter> (a build with the binding), the installed
# package is imported from the prefix too and must find the installed plugins.
# Usage: cmake -DBUILD_DIR=... -DSOURCE=... -DWORK_DIR=... -DCONFIG=... [-DPYTHON=...]
#        -P consumer_build.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../support/install_to_prefix.cmake)
if(EXISTS ${prefix}/include/ndsearch/core/search)
  message(FATAL_ERROR "the core's private headers were installed")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/best_strategy ${CONFIG})
string(JSON program_step GET "${last_output}" step_s)
string(JSON program_strategy GET "${last_output}" strategy)
run(${prefix}/bin/ndsearch search ${CONFIG} -A nvidia-h100-sxm -d 64 -b 64 --seq-len 8192 -t 1
    --format json)
string(JSON cli_step GET "${last_output}" ranking 0 time step_s)
string(JSON cli_strategy GET "${last_output}" ranking 0 strategy)
string(JSON same EQUAL "${program_strategy}" "${cli_strategy}")
if(NOT program_step STREQUAL cli_step OR NOT same)
  message(FATAL_ERROR "the program's best (${program_step} s, ${program_strategy}) is not the "
                      "CLI's (${cli_step} s, ${cli_strategy})")
endif()
message(STATUS "best strategy through the installed library: ${program_step} s, ${program_strategy}")

if(PYTHON)
  # No NDS_PLUGIN_PATH or build tree to fall back on: what it prices comes from the prefix.
  run(${CMAKE_COMMAND} -E env --unset=NDS_PLUGIN_PATH --unset=NDS_DEVICE_PATH
      PYTHONPATH=${prefix}/lib/python3/dist-packages
      ${PYTHON} ${CMAKE_CURRENT_LIST_DIR}/installed_package.py ${CONFIG} ${cli_step})
  string(STRIP "${last_output}" printed)
  string(REPLACE "\n" ";" printed "${printed}")
  list(GET printed 0 first_plugin)
  list(GET printed -1 python_step)
  string(FIND "${first_plugin}" "${prefix}/" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "the installed package loaded ${first_plugin}, not a plugin under ${prefix}")
  endif()
  message(STATUS "installed Python package: ${python_step} s, plugins from ${first_plugin}")
endif()
