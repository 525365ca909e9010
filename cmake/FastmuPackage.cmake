# The installed CMake package: `find_package(fastmu CONFIG)` gives the
# libraries a C++ framework links as namespaced, versioned targets
# fastmu::transport, fastmu::tables, fastmu::geometry, fastmu::physics (and
# the modules they depend on), with the headers under <prefix>/include/fastmu.
# Included from src/fastmu/CMakeLists.txt, where FASTMU_EXPORTED_TARGETS is set.
include(CMakePackageConfigHelpers)

set(FASTMU_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/fastmu")

install(TARGETS ${FASTMU_EXPORTED_TARGETS} EXPORT fastmuTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/src/fastmu" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT devel FILES_MATCHING PATTERN "*.hh")
install(FILES "${FASTMU_GENERATED_INCLUDE}/fastmu/core/Version.hh"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fastmu/core COMPONENT devel)
install(EXPORT fastmuTargets NAMESPACE fastmu:: DESTINATION ${FASTMU_CMAKE_INSTALL_DIR}
        COMPONENT devel)

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/fastmuConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/fastmuConfig.cmake" INSTALL_DESTINATION ${FASTMU_CMAKE_INSTALL_DIR})
# 0.x: a minor version may break the API, so only the same minor matches.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/fastmuConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/fastmuConfig.cmake" "${PROJECT_BINARY_DIR}/fastmuConfigVersion.cmake"
        DESTINATION ${FASTMU_CMAKE_INSTALL_DIR} COMPONENT devel)
