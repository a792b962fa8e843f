// SPDX-License-Identifier: MIT
// The viewer's units for the box (src/shaders.cmake: the table boids_view_box_shaders): the
// dimension the sources below test with `#if DIM == 2`.
#define DIM 3
#define vecD vec3
