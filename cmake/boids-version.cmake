# SPDX-License-Identifier: MIT
# The version lives in one place, project(VERSION) at the top level: this writes it into the
# generated public header boids/version.h, which boids_version() and `boids --version` read.
set(BOIDS_GENERATED_INCLUDE ${PROJECT_BINARY_DIR}/include)
configure_file(${PROJECT_SOURCE_DIR}/include/boids/version.h.in
               ${BOIDS_GENERATED_INCLUDE}/boids/version.h @ONLY)
