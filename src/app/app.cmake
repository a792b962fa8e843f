# SPDX-License-Identifier: MIT
# The app layer (src/app): the `boids` and boids-mpi programs and the libraries that the
# programs, bench and tests share. Included from the top level after the core and GPU
# targets. Each folder of src/app is one part (its README.md says what it is for and what it
# may use); a header is included with its folder ("sweep/sweep.h"), from src/app.
set(BOIDS_APP ${PROJECT_SOURCE_DIR}/src/app)
add_library(boids_app_tree INTERFACE)
target_include_directories(boids_app_tree INTERFACE ${BOIDS_APP})

# ---- the command line shared by `boids` and boids-bench, and `boids verify` -----------------
# One option table, handler and help for the options every command takes (src/app/cli/cli.h);
# the programs and the tests link these instead of compiling src/app files by path.
# They set up every backend, the GPU's included, so they come with the GPU library.
if(BOIDS_BUILD_GPU)
  add_library(boids_cli STATIC ${BOIDS_APP}/cli/cli.c ${BOIDS_APP}/cli/setup.c
                               ${BOIDS_APP}/cli/backends.c
                               ${BOIDS_APP}/cli/progress.c ${BOIDS_APP}/observe/observables.c
                               ${BOIDS_APP}/output/gnuplot.c)
  target_link_libraries(boids_cli PUBLIC boids_app_tree boids_core boids_gpu)
  add_library(boids_verify STATIC ${BOIDS_APP}/commands/cmd_verify.c
                                  ${BOIDS_APP}/verify/verify_float.c
                                  ${BOIDS_APP}/verify/verify_interact.c
                                  ${BOIDS_APP}/verify/verify_decide.c)
  target_link_libraries(boids_verify PUBLIC boids_cli)
endif()

# ---- the program --------------------------------------------------------------------------
if(BOIDS_BUILD_PROGRAM)
# Research outputs: provenance sidecars (cJSON), NumPy and VTK trajectories, factorial sweeps.
# The commit is read once, at configure time: a build from a tarball says "unknown".
set(BOIDS_GIT_COMMIT "unknown")
if(EXISTS ${PROJECT_SOURCE_DIR}/.git)
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE boids_commit OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE boids_commit_rc ERROR_QUIET)
    if(boids_commit_rc EQUAL 0 AND boids_commit)
      set(BOIDS_GIT_COMMIT ${boids_commit})
    endif()
  endif()
endif()
pkg_check_modules(CJSON REQUIRED IMPORTED_TARGET libcjson)
add_library(boids_research STATIC ${BOIDS_APP}/output/provenance.c ${BOIDS_APP}/output/npy.c
                                  ${BOIDS_APP}/output/vtk.c ${BOIDS_APP}/output/trajectory.c
                                  ${BOIDS_APP}/output/traj_read.c
                                  ${BOIDS_APP}/commands/cmd_sim.c
                                  ${BOIDS_APP}/observe/sim_stats.c
                                  ${BOIDS_APP}/commands/cmd_sweep.c
                                  ${BOIDS_APP}/sweep/sweep_grid.c ${BOIDS_APP}/sweep/sweep_runs.c)
target_compile_definitions(boids_research PRIVATE BOIDS_GIT_COMMIT="${BOIDS_GIT_COMMIT}")
target_link_libraries(boids_research PUBLIC boids_cli PkgConfig::CJSON)

add_executable(boids ${BOIDS_APP}/commands/main.c)
target_link_libraries(boids PRIVATE boids_cli boids_verify boids_research)
if(BOIDS_BUILD_VIEWER)
  include(${BOIDS_APP}/viewer/view.cmake)
  target_compile_definitions(boids PRIVATE BOIDS_HAVE_VIEWER=1)
endif()

# ---- boids-mpi: one flock split over MPI ranks (sim) and a sweep's runs over them (sweep),
# built when MPI (Debian: libopenmpi-dev) is found
option(BOIDS_MPI "Build boids-mpi when an MPI library is found" ON)
if(BOIDS_MPI)
  find_package(MPI COMPONENTS C)
  if(MPI_C_FOUND)
    add_executable(boids-mpi ${BOIDS_APP}/commands/mpi_main.c ${BOIDS_APP}/mpi/mpi_agree.c
                             ${BOIDS_APP}/mpi/mpi_flock.c ${BOIDS_APP}/mpi/sim_mpi.c
                             ${BOIDS_APP}/mpi/sweep_mpi.c)
    target_link_libraries(boids-mpi PRIVATE boids_research MPI::MPI_C)
  else()
    message(STATUS "MPI not found: boids-mpi is not built (Debian: libopenmpi-dev openmpi-bin)")
  endif()
endif()
endif()

