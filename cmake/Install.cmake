# cmake --install: the CLI, the shipped plugins, the ABI headers, the SDK and a
# CMake package, so a vendor's project can find_package(ndsearch) and call
# nds_add_plugin().
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/abi/include/ndsearch
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/include/ndsearch
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The core library (ndsearch::core) with its public API only: the headers of
# core/include/ndsearch/core; the core's own headers stay in the source tree.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/ndsearch
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS nds_abi nds_sdk ndcore EXPORT ndsearchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT ndsearchTargets NAMESPACE ndsearch:: DESTINATION ${NDS_INSTALL_CMAKE_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/sdk/cmake/NdsAddPlugin.cmake
              ${PROJECT_SOURCE_DIR}/sdk/cmake/nds_plugin.map
        DESTINATION ${NDS_INSTALL_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ndsearchConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ndsearchConfig.cmake INSTALL_DESTINATION ${NDS_INSTALL_CMAKE_DIR}
  PATH_VARS NDS_INSTALL_PLUGIN_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ndsearchConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ndsearchConfig.cmake
              ${PROJECT_BINARY_DIR}/ndsearchConfigVersion.cmake
        DESTINATION ${NDS_INSTALL_CMAKE_DIR})
