/* SPDX-License-Identifier: MIT */
#include "remote/osc.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <lo/lo.h>

struct osc_link {
    int sock; /* -1: no input */
    pthread_t thread;
    int thread_started;
    atomic_int stop;
    pthread_mutex_t lock;
    osc_msg queue[OSC_QUEUE]; /* ring: head is the oldest */
    unsigned head, len;
    unsigned long dropped;
    lo_address out; /* NULL: nothing sent */
};

/* ---- receiving (the OSC thread) ------------------------------------------------------- */

static void enqueue(osc_link *l, const osc_msg *m) {
    pthread_mutex_lock(&l->lock);
    if (l->len == OSC_QUEUE) {
        l->dropped++;
    } else {
        l->queue[(l->head + l->len) % OSC_QUEUE] = *m;
        l->len++;
    }
    pthread_mutex_unlock(&l->lock);
}

/* One argument of type t into m's slot i; 0 for a type we do not take, -1 for a string too
 * long to keep whole (it is refused, never cut and read as a shorter one). liblo's argument
 * pointers point into the packet, 4-byte aligned only: the values are copied out rather
 * than read through lo_arg, whose 64-bit members want 8. */
static int take_arg(osc_msg *m, int i, char t, const void *a) {
    float f;
    double d;
    int32_t n;
    int64_t h;
    switch (t) {
    case 'f':
        memcpy(&f, a, sizeof f);
        m->num[i] = f;
        snprintf(m->text[i], OSC_TEXT_MAX, "%.9g", f);
        return 1;
    case 'd':
        memcpy(&d, a, sizeof d);
        m->num[i] = d;
        snprintf(m->text[i], OSC_TEXT_MAX, "%.17g", d);
        return 1;
    case 'i':
        memcpy(&n, a, sizeof n);
        m->num[i] = n;
        snprintf(m->text[i], OSC_TEXT_MAX, "%d", (int)n);
        return 1;
    case 'h':
        memcpy(&h, a, sizeof h);
        m->num[i] = (double)h;
        snprintf(m->text[i], OSC_TEXT_MAX, "%lld", (long long)h);
        return 1;
    case 'T':
    case 'F':
        m->num[i] = t == 'T';
        snprintf(m->text[i], OSC_TEXT_MAX, "%d", t == 'T');
        return 1;
    case 's':
    case 'S': {
        if (strlen(a) >= OSC_TEXT_MAX) return -1;
        snprintf(m->text[i], OSC_TEXT_MAX, "%s", (const char *)a);
        char *end;
        double v = strtod(m->text[i], &end);
        m->num[i] = end != m->text[i] && *end == '\0' ? v : NAN;
        return 1;
    }
    default:
        return 0;
    }
}

/* Decodes one message (data, size) and queues it, or queues why it is unusable. */
static void decode_message(osc_link *l, char *data, size_t size) {
    osc_msg m;
    memset(&m, 0, sizeof m);
    int result = 0;
    lo_message msg = lo_message_deserialise(data, size, &result);
    if (!msg) {
        snprintf(m.path, sizeof m.path, "?");
        m.argc = -1;
        snprintf(m.bad, sizeof m.bad, "malformed OSC packet (liblo error %d)", result);
        enqueue(l, &m);
        return;
    }
    /* A message starts with its address; one too long to keep is refused under its first
     * characters, never dispatched as the shorter address they make. */
    size_t path_len = strlen(data);
    if (path_len >= OSC_PATH_MAX) {
        snprintf(m.path, sizeof m.path, "%.40s...", data);
        m.argc = -1;
        snprintf(m.bad, sizeof m.bad, "address of %zu characters (at most %d)", path_len,
                 OSC_PATH_MAX - 1);
        lo_message_free(msg);
        enqueue(l, &m);
        return;
    }
    memcpy(m.path, data, path_len + 1);
    int argc = lo_message_get_argc(msg);
    const char *types = lo_message_get_types(msg);
    lo_arg **argv = lo_message_get_argv(msg);
    if (argc > OSC_MAX_ARGS) {
        m.argc = -1;
        snprintf(m.bad, sizeof m.bad, "%d arguments (at most %d)", argc, OSC_MAX_ARGS);
    } else {
        m.argc = argc;
        for (int i = 0; i < argc && m.argc >= 0; i++) {
            m.types[i] = types[i];
            int took = take_arg(&m, i, types[i], argv[i]);
            if (took < 0) {
                m.argc = -1;
                snprintf(m.bad, sizeof m.bad,
                         "argument %d is a string of %zu characters (at most %d)", i + 1,
                         strlen((const char *)argv[i]), OSC_TEXT_MAX - 1);
            } else if (!took) {
                m.argc = -1;
                snprintf(m.bad, sizeof m.bad,
                         "argument %d has OSC type '%c' (use f, d, i, h, s, "
                         "T or F)",
                         i + 1, types[i]);
            }
        }
    }
    lo_message_free(msg);
    enqueue(l, &m);
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A packet: a message, or a bundle ("#bundle", a time tag, then size-prefixed elements,
 * themselves messages or bundles). Time tags are ignored: everything applies on arrival. */
static void decode_packet(osc_link *l, char *data, size_t size, int depth) {
    if (size >= 16 && !memcmp(data, "#bundle", 8)) {
        size_t at = 16;
        while (depth < 8 && at + 4 <= size) {
            size_t len = be32((unsigned char *)data + at);
            at += 4;
            if (len > size - at || len % 4) break;
            decode_packet(l, data + at, len, depth + 1);
            at += len;
        }
        return;
    }
    decode_message(l, data, size);
}

static void *receive_loop(void *arg) {
    osc_link *l = arg;
    /* Word-aligned for liblo's decoder; 64 KiB holds any UDP datagram. */
    static uint32_t buf[16384];
    while (!atomic_load(&l->stop)) {
        struct pollfd p = {l->sock, POLLIN, 0};
        /* Wakes up now and then to see whether the viewer is closing. */
        if (poll(&p, 1, 100) <= 0) continue;
        ssize_t got = recv(l->sock, buf, sizeof buf, 0);
        if (got > 0) decode_packet(l, (char *)buf, (size_t)got, 0);
    }
    return NULL;
}

/* ---- set-up ----------------------------------------------------------------------------- */

static boids_status bind_socket(osc_link *l, const char *host, int port, boids_error *err) {
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(host, service, &hints, &res);
    if (rc)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--osc-host %s: %s", host, gai_strerror(rc));
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        int s = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (s < 0) continue;
        if (bind(s, a->ai_addr, a->ai_addrlen) == 0) {
            l->sock = s;
            break;
        }
        rc = errno;
        close(s);
    }
    freeaddrinfo(res);
    if (l->sock < 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--osc-port %d: cannot listen on %s: %s", port,
                               host, strerror(rc ? rc : EADDRNOTAVAIL));
    return BOIDS_OK;
}

static boids_status open_target(osc_link *l, const char *send_to, boids_error *err) {
    const char *colon = strrchr(send_to, ':');
    char host[256];
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || colon == send_to || (size_t)(colon - send_to) >= sizeof host ||
        end == colon + 1 || *end || port < 1 || port > 65535)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--osc-send '%s': expected HOST:PORT",
                               send_to);
    memcpy(host, send_to, (size_t)(colon - send_to));
    host[colon - send_to] = '\0';
    l->out = lo_address_new(host, colon + 1);
    if (!l->out)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--osc-send '%s': unknown host", send_to);
    return BOIDS_OK;
}

osc_link *osc_create(const char *host, int port, const char *send_to, boids_error *err) {
    osc_link *l = calloc(1, sizeof *l);
    if (!l) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    l->sock = -1;
    pthread_mutex_init(&l->lock, NULL);
    atomic_init(&l->stop, 0);
    if (port > 0 && bind_socket(l, host ? host : "127.0.0.1", port, err)) goto fail;
    if (send_to && open_target(l, send_to, err)) goto fail;
    if (l->sock >= 0) {
        if (pthread_create(&l->thread, NULL, receive_loop, l)) {
            boids_error_set(err, BOIDS_ERR_RUNTIME, "cannot start the OSC thread");
            goto fail;
        }
        l->thread_started = 1;
    }
    return l;
fail:
    osc_destroy(l);
    return NULL;
}

void osc_destroy(osc_link *l) {
    if (!l) return;
    if (l->thread_started) {
        atomic_store(&l->stop, 1);
        pthread_join(l->thread, NULL);
    }
    if (l->sock >= 0) close(l->sock);
    if (l->out) lo_address_free(l->out);
    pthread_mutex_destroy(&l->lock);
    free(l);
}

/* ---- the frame loop's side -------------------------------------------------------------- */

int osc_next(osc_link *l, osc_msg *m, unsigned long *dropped) {
    pthread_mutex_lock(&l->lock);
    int got = l->len > 0;
    if (got) {
        *m = l->queue[l->head];
        l->head = (l->head + 1) % OSC_QUEUE;
        l->len--;
    }
    if (dropped) {
        *dropped = l->dropped;
        l->dropped = 0;
    }
    pthread_mutex_unlock(&l->lock);
    return got;
}

int osc_sends(const osc_link *l) {
    return l->out != NULL;
}

/* The message of msg, or NULL when liblo has no memory for it. */
static lo_message message_of(const osc_out *msg) {
    lo_message m = lo_message_new();
    for (int k = 0; m && k < msg->argc; k++) {
        const osc_arg *a = &msg->argv[k];
        if (a->type == 'f') lo_message_add_float(m, (float)a->f);
        if (a->type == 'i') lo_message_add_int32(m, (int32_t)a->n);
        if (a->type == 'h') lo_message_add_int64(m, a->n);
    }
    return m;
}

void osc_send_bundle(osc_link *l, const osc_out *msgs, int count) {
    if (!l->out) return;
    lo_bundle b = lo_bundle_new(LO_TT_IMMEDIATE);
    if (!b) return;
    for (int i = 0; i < count; i++) {
        lo_message m = message_of(&msgs[i]);
        if (m) lo_bundle_add_message(b, msgs[i].path, m);
    }
    lo_send_bundle(l->out, b);
    lo_bundle_free_recursive(b);
}

void osc_send_message(osc_link *l, const osc_out *msg) {
    if (!l->out) return;
    lo_message m = message_of(msg);
    if (!m) return;
    lo_send_message(l->out, msg->path, m);
    lo_message_free(m);
}

void osc_send_text(osc_link *l, const char *path, const char *text) {
    if (l->out) lo_send(l->out, path, "s", text);
}
