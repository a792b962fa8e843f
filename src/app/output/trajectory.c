/* SPDX-License-Identifier: MIT */
#include "output/trajectory.h"

#include <stdlib.h>
#include <string.h>

boids_status app_traj_open(app_traj *t, const char *path, size_t frames, size_t n, int dim, int f8,
                           double dt, const double *side, boids_error *err) {
    memset(t, 0, sizeof *t);
    t->path = path;
    t->frames = frames, t->n = n, t->dim = dim;
    t->vtk = app_vtk_wanted(path);
    t->gsd = app_gsd_wanted(path);
    boids_status s = t->vtk   ? app_vtk_open(&t->pvd, path, frames, n, dim, f8, dt, err)
                     : t->gsd ? app_gsd_open(&t->g, path, frames, n, dim, f8, side, err)
                              : app_npy_open(&t->npy, path, frames, n, dim, f8, err);
    t->open = !s;
    return s;
}

void app_traj_set_species(app_traj *t, const boids_params *p) {
    if (t->open && t->gsd) app_gsd_set_species(&t->g, p);
    if (t->open && t->vtk) app_vtk_set_species(&t->pvd, p);
}

boids_status app_traj_frame(app_traj *t, const boids_flock *f, unsigned long step,
                            boids_error *err) {
    if (!t->open) return BOIDS_OK;
    if (f->n != t->n || t->written == t->frames || boids_flock_dim(f) != t->dim)
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "%s: frame %zu of %zu %d-D boids does not fit the declared %zu "
                               "frames of %zu %d-D boids",
                               t->path, t->written, f->n, boids_flock_dim(f), t->frames, t->n,
                               t->dim);
    t->written++;
    return t->vtk   ? app_vtk_frame(&t->pvd, f, step, err)
           : t->gsd ? app_gsd_frame(&t->g, f, step, err)
                    : app_npy_frame(&t->npy, f, err);
}

boids_status app_traj_close(app_traj *t, boids_error *err) {
    if (!t->open) return BOIDS_OK;
    t->open = 0;
    return t->vtk   ? app_vtk_close(&t->pvd, err)
           : t->gsd ? app_gsd_close(&t->g, err)
                    : app_npy_close(&t->npy, err);
}

void app_traj_abort(app_traj *t) {
    if (!t->open) return;
    t->open = 0;
    if (t->vtk)
        app_vtk_abort(&t->pvd);
    else if (t->gsd)
        app_gsd_abort(&t->g);
    else
        app_npy_abort(&t->npy);
}

void app_traj_describe(cJSON *out, const char *path, size_t frames, size_t n, int dim, int f8) {
    int vtk = app_vtk_wanted(path);
    if (app_gsd_wanted(path)) {
        double shape[3] = {(double)frames, (double)n, 3.0};
        cJSON_AddStringToObject(out, "format", "GSD 2.0, schema hoomd 1.4, little-endian");
        cJSON_AddStringToObject(out, "dtype", "<f4");
        cJSON_AddItemToObject(out, "shape", cJSON_CreateDoubleArray(shape, 3));
        cJSON_AddStringToObject(out, "layout",
                                "frame t: configuration/step, particles/position and "
                                "particles/velocity (N x 3; z = 0 in 2-D), boid i at row i (id "
                                "order); positions float32(x) - float32(side / 2) (the box "
                                "centred on 0); frame 0 also holds configuration/box (Lz = 0 "
                                "in 2-D), configuration/dimensions, particles/N, particles/types "
                                "[\"boid\"] and particles/typeid (0)");
        return;
    }
    double shape[3] = {(double)frames, (double)n, vtk ? 3.0 : 2.0 * dim};
    cJSON_AddStringToObject(out, "format",
                            vtk ? "VTK XML: a .pvd collection of PolyData .vtp frames, appended "
                                  "raw binary, UInt64 headers, little-endian"
                                : "NumPy .npy 1.0, C order");
    cJSON_AddStringToObject(out, "dtype", f8 ? "<f8" : "<f4");
    cJSON_AddItemToObject(out, "shape", cJSON_CreateDoubleArray(shape, 3));
    if (vtk) {
        char *folder = strdup(path);
        if (folder) folder[strlen(folder) - strlen(".pvd")] = '\0';
        cJSON_AddStringToObject(out, "frames_folder", folder ? folder : "");
        free(folder);
        cJSON_AddStringToObject(out, "layout",
                                "frame t: FOLDER/frame_T.vtp (T with 6 digits or more), listed "
                                "in the .pvd with timestep = step * dt; Points (x, y, z; z = 0 "
                                "in 2-D) of boid i at point i, one vertex cell a point, "
                                "PointData velocity (vx, vy, vz; vz = 0 in 2-D) and id (Int64, "
                                "i), FieldData TimeValue (Float64, step * dt) and step (Int64)");
    } else {
        cJSON_AddStringToObject(out, "layout",
                                dim == 3 ? "a[t, i] = (x, y, z, vx, vy, vz) of boid i (id order) "
                                           "at sample t"
                                         : "a[t, i] = (x, y, vx, vy) of boid i (id order) at "
                                           "sample t");
    }
}
