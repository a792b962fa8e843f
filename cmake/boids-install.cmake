# SPDX-License-Identifier: MIT
# Install rules (included from the top level when BOIDS_INSTALL is on): headers, the four
# libraries, the programs (boids-mpi too where MPI was found), the documentation, a CMake
# package, a pkg-config file and the Python package (cmake/boids-python.cmake), all in
# GNUInstallDirs places under CMAKE_INSTALL_PREFIX.
#
#   find_package(boids 0.4 REQUIRED)   then link boids::core or boids::gpu
#   pkg-config --cflags --libs boids   the shared core (boids-gpu for the GPU library)
include(CMakePackageConfigHelpers)

set(BOIDS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/boids)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/boids ${BOIDS_GENERATED_INCLUDE}/boids
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.h")
install(TARGETS ${BOIDS_EXPORTED_TARGETS} EXPORT boidsTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT boidsTargets NAMESPACE boids:: DESTINATION ${BOIDS_CMAKE_DIR} COMPONENT dev)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/boidsConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/boidsConfig.cmake
                              INSTALL_DESTINATION ${BOIDS_CMAKE_DIR})
# 0.x releases promise nothing across minor versions: 0.4 accepts 0.4.*, not 0.5.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/boidsConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/boidsConfig.cmake ${PROJECT_BINARY_DIR}/boidsConfigVersion.cmake
        DESTINATION ${BOIDS_CMAKE_DIR} COMPONENT dev)

# pkg-config: boids (the core) and boids-gpu, with the static dependencies for --static. The
# prefix is found from the .pc file's own place, so an installed tree can be moved (and
# `cmake --install --prefix` elsewhere works).
file(RELATIVE_PATH BOIDS_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
string(REGEX REPLACE "/$" "" BOIDS_PC_TO_PREFIX "${BOIDS_PC_TO_PREFIX}")
if(OpenMP_C_FOUND)
  set(BOIDS_PC_LIBS_PRIVATE "-lm ${OpenMP_C_FLAGS}")
else()
  set(BOIDS_PC_LIBS_PRIVATE "-lm")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/boids.pc.in ${PROJECT_BINARY_DIR}/boids.pc @ONLY)
set(BOIDS_PC_FILES ${PROJECT_BINARY_DIR}/boids.pc)
if(TARGET boids_gpu_shared)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/boids-gpu.pc.in ${PROJECT_BINARY_DIR}/boids-gpu.pc
                 @ONLY)
  list(APPEND BOIDS_PC_FILES ${PROJECT_BINARY_DIR}/boids-gpu.pc)
endif()
install(FILES ${BOIDS_PC_FILES} DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

foreach(program IN ITEMS boids boids-bench boids-mpi)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT bin)
  endif()
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)
include(${CMAKE_CURRENT_LIST_DIR}/boids-python.cmake)
