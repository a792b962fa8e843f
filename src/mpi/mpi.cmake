# SPDX-License-Identifier: MIT
# MPI backend: one flock split over MPI ranks (src/mpi), included from the top level after the
# core. Built into the library boids_mpi when the program is built and CMake finds an MPI
# library; boids-mpi (src/app/app.cmake) is built where this target exists.
#
# As a backend it implements the core's backend operations: the core's internal headers
# (backend_impl.h, tile.h) are on its private include path, as they are on boids_gpu's. What
# links it includes its one header as "mpi_flock.h".
option(BOIDS_MPI "Build boids-mpi when an MPI library is found" ON)
if(BOIDS_MPI AND BOIDS_BUILD_PROGRAM)
  find_package(MPI COMPONENTS C)
  if(MPI_C_FOUND)
    add_library(boids_mpi STATIC src/mpi/mpi_flock.c src/mpi/mpi_resident.c src/mpi/mpi_cut.c
                                 src/mpi/mpi_parts.c
                                 src/mpi/mpi_io.c src/mpi/mpi_metrics.c src/mpi/mpi_corr.c
                                 src/mpi/mpi_clusters.c)
    target_include_directories(boids_mpi PUBLIC src/mpi PRIVATE src/core src/support)
    target_link_libraries(boids_mpi PUBLIC boids_core MPI::MPI_C PRIVATE boids_support)
  else()
    message(STATUS "MPI not found: boids-mpi is not built (Debian: libopenmpi-dev openmpi-bin)")
  endif()
endif()
