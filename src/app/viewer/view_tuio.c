/* SPDX-License-Identifier: MIT */
/* TUIO 1.1 on the viewer's OSC port: the cursors (/tuio/2Dcur) and blobs (/tuio/2Dblb) that
 * a camera or touch tracker follows become points of the interaction table (--tuio:
 * predators or attractors), so that the people in front of the screen move the flock.
 *
 * A session id takes the lowest point that is off and held by no other id when its first
 * `set` arrives, moves it with each `set`, and hands it back (off) when an `alive` list of
 * its profile no longer names it. Beyond 16 ids the extra ones are ignored, said once until
 * a point comes free. Positions are normalised to the window (0..1, y down, as TUIO has
 * them) and go to the world through the camera, so that a tracker aligned with the
 * projection puts the point under the person. `fseq` and `source` are taken and not used:
 * messages apply in the order they arrive. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "viewer/view_internal.h"

const char *const view_tuio_names[VIEW_TUIO_KINDS + 1] = {"predators", "attractors", "off", NULL};

static boids_point *table_of(view *v) {
    return v->o->tuio == VIEW_TUIO_ATTRACTORS ? v->sim.inter.attractors : v->sim.inter.predators;
}

/* The point the session id of profile holds, or -1. */
static int held_by(const view *v, int profile, double id) {
    for (int i = 0; i < BOIDS_MAX_POINTS; i++)
        if (v->remote.tuio[i].held && v->remote.tuio[i].profile == profile &&
            v->remote.tuio[i].id == id)
            return i;
    return -1;
}

/* A new session id's point, or -1 when every point is on or held. */
static int take(view *v, int profile, double id) {
    const boids_point *t = table_of(v);
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        if (v->remote.tuio[i].held || t[i].on) continue;
        v->remote.tuio[i] = (view_tuio_slot){1, profile, id};
        return i;
    }
    if (!v->remote.tuio_full)
        view_say(v, "TUIO: no free %s point (16 at most): further cursors are ignored",
                 v->o->tuio == VIEW_TUIO_ATTRACTORS ? "attractor" : "predator");
    v->remote.tuio_full = 1;
    return -1;
}

/* `set s x y ...`: the point of session s at the window's normalised (x, y). */
static void set(view *v, const osc_msg *m, int profile) {
    if (m->argc < 4 || !isfinite(m->num[1]) || !isfinite(m->num[2]) || !isfinite(m->num[3])) {
        view_osc_complain(v, m, "expected set SESSION X Y ... (numbers)");
        return;
    }
    /* TUIO's positions are normalised to the window; far outside it a point would leave
     * the world's numbers (x = 1e308 makes an infinite world point). */
    if (!(fabs(m->num[2] - 0.5) <= 1 && fabs(m->num[3] - 0.5) <= 1)) {
        char why[2 * OSC_TEXT_MAX + 96];
        snprintf(why, sizeof why, "position (%s, %s) is outside [-0.5, 1.5] (the window is 0 to 1)",
                 m->text[2], m->text[3]);
        view_osc_complain(v, m, why);
        return;
    }
    view_input_seen(v); /* someone is there */
    int i = held_by(v, profile, m->num[1]), fresh = i < 0;
    if (fresh && (i = take(v, profile, m->num[1])) < 0) return;
    const boids_params *p = scene_params(v->sc);
    render_camera c = view_camera(v);
    double wx, wy;
    render_px_to_world(&c, m->num[2] * v->window.fb_w, m->num[3] * v->window.fb_h, &wx, &wy);
    if (p->boundary == BOIDS_BOUNDARY_WRAP) {
        wx -= floor(wx / p->width) * p->width;
        wy -= floor(wy / p->height) * p->height;
    }
    int pred = v->o->tuio != VIEW_TUIO_ATTRACTORS;
    boids_point *pt = &table_of(v)[i]; /* its z stays: a cursor moves in the plane */
    boids_point np = {1,
                      wx,
                      wy,
                      pred ? p->predator_radius : p->food_radius,
                      pred ? p->predator_weight : p->food_weight,
                      pt->z};
    boids_error e;
    if (boids_interact_check_point(&np, "TUIO", &e)) {
        view_osc_complain(v, m, e.msg);
        if (fresh) v->remote.tuio[i].held = 0;
        return;
    }
    *pt = np;
}

/* `alive s...`: the points of this profile's ids not listed go off and free. */
static void alive(view *v, const osc_msg *m, int profile) {
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        if (!v->remote.tuio[i].held || v->remote.tuio[i].profile != profile) continue;
        int listed = 0;
        for (int k = 1; k < m->argc && !listed; k++) listed = m->num[k] == v->remote.tuio[i].id;
        if (listed) continue;
        v->remote.tuio[i].held = 0;
        table_of(v)[i].on = 0;
        v->remote.tuio_full = 0;
    }
}

void view_tuio(view *v, const osc_msg *m, const char *rest) {
    (void)rest;
    if (v->o->tuio == VIEW_TUIO_OFF) return;
    int profile = !strcmp(m->path, "/tuio/2Dblb");
    const char *cmd = m->argc > 0 ? m->text[0] : "";
    if (!strcmp(cmd, "set"))
        set(v, m, profile);
    else if (!strcmp(cmd, "alive"))
        alive(v, m, profile);
    else if (strcmp(cmd, "fseq") && strcmp(cmd, "source"))
        view_osc_complain(v, m, "expected alive, set, fseq or source first");
}

void view_tuio_forget(view *v) {
    memset(v->remote.tuio, 0, sizeof v->remote.tuio);
    v->remote.tuio_full = 0;
}
