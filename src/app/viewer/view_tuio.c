/* SPDX-License-Identifier: MIT */
/* TUIO 1.1 on the viewer's OSC port: the cursors (/tuio/2Dcur) and blobs (/tuio/2Dblb) that
 * a camera or touch tracker follows become points of the interaction table (--tuio:
 * predators or attractors), so that the people in front of the screen move the flock.
 *
 * A session id takes the lowest point that is off and held by no other id when its first
 * `set` arrives, moves it with each `set`, and hands it back (off) when an `alive` list of
 * its profile no longer names it. Beyond 16 ids the extra ones are ignored, said once until
 * a point comes free. Positions are normalised to the window (0..1, y down, as TUIO has
 * them), calibrated (offset, scale, flip: a tracker's frame rarely matches the projection's
 * exactly) and go to the world through the camera, so that the point lands under the person;
 * markers show where (--tuio-markers). `fseq` and `source` are taken and not used:
 * messages apply in the order they arrive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"
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
        v->remote.tuio[i] = (view_tuio_slot){1, profile, id, 0, 0};
        return i;
    }
    if (!v->remote.tuio_full)
        view_say(v, "TUIO: no free %s point (16 at most): further cursors are ignored",
                 v->o->tuio == VIEW_TUIO_ATTRACTORS ? "attractor" : "predator");
    v->remote.tuio_full = 1;
    return -1;
}

/* ---- calibration --------------------------------------------------------------------- */

int view_tuio_is_key(const char *key) {
    return !strncmp(key, "tuio.", 5);
}

/* Two numbers "X,Y" or "X Y" within [lo, hi] (lo excluded with open). */
static int pair(const char *text, double lo, double hi, int open, double out[2]) {
    char *end;
    const char *s = text;
    for (int k = 0; k < 2; k++) {
        while (*s == ' ' || *s == '\t' || (k && *s == ',')) s++;
        out[k] = strtod(s, &end);
        if (end == s || !isfinite(out[k]) || out[k] > hi || out[k] < lo || (open && out[k] == lo))
            return 0;
        s = end;
    }
    while (*s == ' ' || *s == '\t') s++;
    return *s == '\0';
}

boids_status view_tuio_set(view_tuio_cal *c, const char *key, const char *value, const char *where,
                           boids_error *err) {
    static const char *const flips[] = {"none", "x", "y", "xy"};
    while (*value == ' ' || *value == '\t') value++;
    if (!strcmp(key, "tuio.offset")) {
        if (pair(value, -10, 10, 0, c->offset)) return BOIDS_OK;
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: %s = '%s': expected X,Y, each in [-10, 10] (window widths)",
                               where, key, value);
    }
    if (!strcmp(key, "tuio.scale")) {
        if (pair(value, 0, 10, 1, c->scale)) return BOIDS_OK;
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: %s = '%s': expected SX,SY, each in (0, 10] (tuio.flip "
                               "mirrors)",
                               where, key, value);
    }
    if (!strcmp(key, "tuio.flip")) {
        for (int k = 0; k < 4; k++)
            if (!strcmp(value, flips[k])) {
                c->flip = k;
                return BOIDS_OK;
            }
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s = '%s': expected none, x, y or xy",
                               where, key, value);
    }
    if (!strcmp(key, "tuio.markers")) {
        if (!strcmp(value, "on") || !strcmp(value, "off")) {
            c->markers = !strcmp(value, "on");
            return BOIDS_OK;
        }
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s = '%s': expected on or off", where,
                               key, value);
    }
    return boids_error_set(err, BOIDS_ERR_INPUT,
                           "%s: unknown key '%s' (tuio.offset, tuio.scale, tuio.flip, "
                           "tuio.markers)",
                           where, key);
}

static boids_status set_cal(void *user, const char *key, const char *value, const char *where,
                            boids_error *err) {
    return view_tuio_is_key(key) ? view_tuio_set(user, key, value, where, err) : BOIDS_OK;
}

boids_status view_tuio_load_ini(view_tuio_cal *c, const char *path, boids_error *err) {
    view_tuio_cal tmp = *c;
    boids_status st = boids_ini_read(path, set_cal, &tmp, err);
    if (!st) *c = tmp;
    return st;
}

/* The window's normalised point of a tracker's (x, y): flipped, scaled, offset. */
static void calibrate(const view_tuio_cal *c, double x, double y, double *wx, double *wy) {
    *wx = c->offset[0] + c->scale[0] * (c->flip & 1 ? 1 - x : x);
    *wy = c->offset[1] + c->scale[1] * (c->flip & 2 ? 1 - y : y);
}

/* Marks where the tracked points land: a ring and a cross at each, in the window's pixels
 * (the plane; the box has no window point of a world point to draw at). */
void view_tuio_draw(view *v) {
    if (!v->o->tuio_cal.markers) return;
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        const view_tuio_slot *t = &v->remote.tuio[i];
        if (!t->held) continue;
        float x = (float)(t->wx * v->window.fb_w), y = (float)(t->wy * v->window.fb_h);
        float r = 6 * v->panel.ui.ts;
        uint32_t col = 0xffd24aff;
        render_circle(v->r, x, y, r, 2, 0, col);
        render_line(v->r, x - 1.5f * r, y, x + 1.5f * r, y, 2, col);
        render_line(v->r, x, y - 1.5f * r, x, y + 1.5f * r, 2, col);
    }
}

/* ---- cursors and blobs ------------------------------------------------------------------ */

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
    double nx, ny, wx, wy;
    calibrate(&v->o->tuio_cal, m->num[2], m->num[3], &nx, &ny);
    render_px_to_world(&c, nx * v->window.fb_w, ny * v->window.fb_h, &wx, &wy);
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
    (v->o->tuio == VIEW_TUIO_ATTRACTORS ? v->sim.places.attractors : v->sim.places.predators)[i] =
        0;
    v->remote.tuio[i].wx = nx, v->remote.tuio[i].wy = ny;
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
