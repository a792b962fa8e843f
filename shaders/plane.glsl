// SPDX-License-Identifier: MIT
// The viewer's units for the plane (src/shaders.cmake: the table boids_view_shaders): the
// dimension the sources below test with `#if DIM == 2`.
#define DIM 2
#define vecD vec2
