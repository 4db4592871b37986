# Writes a copy of the ABI headers with one field of 1.0 retyped in place
# (nds_device.host_link_bytes_per_s: double -> int64_t, the same size and
# offset), for the test that the ABI check's append-only rule catches what
# abidiff's suppressions hide.
# Usage: cmake -DSOURCE_DIR=abi/include/ndsearch -DOUTPUT_DIR=... -P this
file(GLOB headers RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/*.h)
foreach(header IN LISTS headers)
  file(READ ${SOURCE_DIR}/${header} text)
  if(header STREQUAL "nds_hardware.h")
    string(REPLACE "  double host_link_bytes_per_s;" "  int64_t host_link_bytes_per_s;" retyped "${text}")
    if(retyped STREQUAL text)
      message(FATAL_ERROR "nds_hardware.h has no `double host_link_bytes_per_s;` to retype")
    endif()
    set(text "${retyped}")
  endif()
  file(WRITE ${OUTPUT_DIR}/ndsearch/${header} "${text}")
endforeach()
