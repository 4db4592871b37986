# What a vendor does with an installed ndsearch: install it to a prefix,
# configure the SDK templates as a separate project with find_package(ndsearch),
# build them, and check both with the installed `ndsearch plugins check`.
# Usage: cmake -DBUILD_DIR=... -DTEMPLATES=... -DWORK_DIR=... -P vendor_build.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../support/install_to_prefix.cmake)
run(${CMAKE_COMMAND} -S ${TEMPLATES} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
foreach(plugin example_npu example_weights)
  run(${prefix}/bin/ndsearch plugins check ${WORK_DIR}/build/${plugin}.so)
  message(STATUS "${plugin}: ${last_output}")
endforeach()
