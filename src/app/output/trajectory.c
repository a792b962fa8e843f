/* SPDX-License-Identifier: MIT */
#include "output/trajectory.h"

#include <stdlib.h>
#include <string.h>

boids_status app_traj_open(app_traj *t, const char *path, size_t frames, size_t n, int dim, int f8,
                           double dt, boids_error *err) {
    memset(t, 0, sizeof *t);
    t->vtk = app_vtk_wanted(path);
    boids_status s = t->vtk ? app_vtk_open(&t->pvd, path, frames, n, dim, f8, dt, err)
                            : app_npy_open(&t->npy, path, frames, n, dim, f8, err);
    t->open = !s;
    return s;
}

boids_status app_traj_frame(app_traj *t, const boids_flock *f, unsigned long step,
                            boids_error *err) {
    if (!t->open) return BOIDS_OK;
    return t->vtk ? app_vtk_frame(&t->pvd, f, step, err) : app_npy_frame(&t->npy, f, err);
}

boids_status app_traj_close(app_traj *t, boids_error *err) {
    if (!t->open) return BOIDS_OK;
    t->open = 0;
    return t->vtk ? app_vtk_close(&t->pvd, err) : app_npy_close(&t->npy, err);
}

void app_traj_abort(app_traj *t) {
    if (!t->open) return;
    t->open = 0;
    if (t->vtk)
        app_vtk_abort(&t->pvd);
    else
        app_npy_abort(&t->npy);
}

void app_traj_describe(cJSON *out, const char *path, size_t frames, size_t n, int dim, int f8) {
    int vtk = app_vtk_wanted(path);
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
