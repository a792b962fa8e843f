// SPDX-License-Identifier: MIT
// Stage 5, steer + integrate (metric neighbours, steer.glsl): each boid writes its new state
// to the other buffer of the ping-pong pair at the same index (in tile mode only the boids of
// the steered rows; the others are copied).
layout(local_size_x = WG) in;

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vecD p, v;
    boid_load(i, p, v);
#ifdef TILE
    if (!tile_steered(p, src_id[i])) {
        state_store(i, p, v, src_id[i]);
        return;
    }
#endif
    v = steer_metric(i, p, v);
    state_store(i, p, v, src_id[i]);
}
