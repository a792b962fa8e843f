/* SPDX-License-Identifier: MIT */
/* Prints the layout of every public struct that the Python package mirrors with ctypes
 * (python/boids/_lib.py), as the C compiler lays it out: "struct size N" and
 * "struct.field offset N" lines. test_abi.py compares them with ctypes, since a mismatch
 * would corrupt memory silently instead of failing. */
#include <stddef.h>
#include <stdio.h>

#include "boids/error.h"
#include "boids/flock.h"
#include "boids/gpu.h"
#include "boids/interact.h"
#include "boids/metrics.h"
#include "boids/params.h"

#define SIZE(type)         printf(#type " size %zu\n", sizeof(type))
#define FIELD(type, field) printf(#type "." #field " offset %zu\n", offsetof(type, field))

/* One line per field of each mirrored struct, hence its length. */
int main(void) {
    SIZE(boids_params);
    FIELD(boids_params, model);
    FIELD(boids_params, width);
    FIELD(boids_params, height);
    FIELD(boids_params, dim);
    FIELD(boids_params, depth);
    FIELD(boids_params, boundary);
    FIELD(boids_params, wall_margin);
    FIELD(boids_params, wall_weight);
    FIELD(boids_params, count);
    FIELD(boids_params, initial_speed);
    FIELD(boids_params, vision_radius);
    FIELD(boids_params, separation_radius);
    FIELD(boids_params, fov);
    FIELD(boids_params, neighbours);
    FIELD(boids_params, k);
    FIELD(boids_params, k_in_vision);
    FIELD(boids_params, max_speed);
    FIELD(boids_params, min_speed);
    FIELD(boids_params, max_force);
    FIELD(boids_params, dt);
    FIELD(boids_params, separation_weight);
    FIELD(boids_params, alignment_weight);
    FIELD(boids_params, cohesion_weight);
    FIELD(boids_params, speed);
    FIELD(boids_params, noise);
    FIELD(boids_params, noise_seed);
    FIELD(boids_params, predator);
    FIELD(boids_params, predator_x);
    FIELD(boids_params, predator_y);
    FIELD(boids_params, predator_z);
    FIELD(boids_params, predator_radius);
    FIELD(boids_params, predator_weight);
    FIELD(boids_params, food);
    FIELD(boids_params, food_x);
    FIELD(boids_params, food_y);
    FIELD(boids_params, food_z);
    FIELD(boids_params, food_radius);
    FIELD(boids_params, food_weight);
    FIELD(boids_params, avoid_distance);
    FIELD(boids_params, avoid_weight);
    FIELD(boids_params, noise_type);
    FIELD(boids_params, alignment);
    FIELD(boids_params, chirality);
    FIELD(boids_params, field);
    FIELD(boids_params, field_x);
    FIELD(boids_params, field_y);
    FIELD(boids_params, field_z);
    FIELD(boids_params, species);
    FIELD(boids_params, sp);
    FIELD(boids_params, coupling);
    FIELD(boids_params, rule);
    FIELD(boids_params, rule_radius);
    FIELD(boids_params, rule_weight);
    SIZE(boids_species);
    FIELD(boids_species, count);
    FIELD(boids_species, speed);
    FIELD(boids_species, max_speed);
    FIELD(boids_species, min_speed);
    FIELD(boids_species, max_force);
    FIELD(boids_species, vision_radius);
    FIELD(boids_species, separation_radius);
    FIELD(boids_species, separation_weight);
    FIELD(boids_species, alignment_weight);
    FIELD(boids_species, cohesion_weight);
    FIELD(boids_species, noise);
    SIZE(boids_error);
    FIELD(boids_error, status);
    FIELD(boids_error, msg);
    SIZE(boids_flock);
    FIELD(boids_flock, n);
    FIELD(boids_flock, x);
    FIELD(boids_flock, y);
    FIELD(boids_flock, vx);
    FIELD(boids_flock, vy);
    FIELD(boids_flock, step);
    FIELD(boids_flock, z);
    FIELD(boids_flock, vz);
    SIZE(boids_metrics);
    SIZE(boids_gpu_options);
    FIELD(boids_gpu_options, deterministic);
    FIELD(boids_gpu_options, check);
    FIELD(boids_gpu_options, timing);
    FIELD(boids_gpu_options, log);
    FIELD(boids_gpu_options, variant);
    FIELD(boids_gpu_options, test_block_bytes);
    FIELD(boids_gpu_options, test_groups_x);
    SIZE(boids_param_info);
    FIELD(boids_param_info, key);
    FIELD(boids_param_info, type);
    FIELD(boids_param_info, offset);
    FIELD(boids_param_info, min);
    FIELD(boids_param_info, max);
    FIELD(boids_param_info, min_open);
    FIELD(boids_param_info, unit);
    FIELD(boids_param_info, doc);
    FIELD(boids_param_info, choices);
    SIZE(boids_preset_info);
    FIELD(boids_preset_info, name);
    FIELD(boids_preset_info, summary);
    SIZE(boids_point);
    FIELD(boids_point, on);
    FIELD(boids_point, x);
    FIELD(boids_point, y);
    FIELD(boids_point, radius);
    FIELD(boids_point, weight);
    FIELD(boids_point, z);
    SIZE(boids_obstacle);
    FIELD(boids_obstacle, kind);
    FIELD(boids_obstacle, x0);
    FIELD(boids_obstacle, y0);
    FIELD(boids_obstacle, x1);
    FIELD(boids_obstacle, y1);
    FIELD(boids_obstacle, radius);
    FIELD(boids_obstacle, z0);
    SIZE(boids_interact);
    FIELD(boids_interact, predators);
    FIELD(boids_interact, attractors);
    FIELD(boids_interact, obstacle_count);
    FIELD(boids_interact, obstacles);
    printf("BOIDS_METRICS_COUNT %d\nBOIDS_ERROR_MSG_MAX %d\n", BOIDS_METRICS_COUNT,
           BOIDS_ERROR_MSG_MAX);
    printf("BOIDS_MAX_POINTS %d\nBOIDS_MAX_OBSTACLES %d\n", BOIDS_MAX_POINTS, BOIDS_MAX_OBSTACLES);
    return 0;
}
