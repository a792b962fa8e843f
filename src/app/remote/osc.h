/* SPDX-License-Identifier: MIT */
/* OSC transport (liblo for the message format and for sending).
 *
 * In: a UDP socket of our own, bound to the host and port asked for (liblo's servers bind
 * every interface, and an installation's control port belongs on 127.0.0.1 unless the
 * technician says otherwise). A thread receives datagrams, decodes each message (and the
 * messages of bundles) and queues it; it never touches GL or the program's state. The
 * program takes the queued messages when it is ready with osc_next() and applies them
 * itself. Out: messages to one HOST:PORT, sent from the program's own thread.
 *
 * It knows no address: what they mean belongs to its user (the viewer's view_osc.c and
 * docs/osc.md). */
#ifndef BOIDS_APP_OSC_H
#define BOIDS_APP_OSC_H

#include <stdint.h>

#include "boids/error.h"

enum {
    OSC_MAX_ARGS = 64,  /* arguments kept of one message (more: the message is refused);
                           a TUIO `alive` lists one per cursor */
    OSC_PATH_MAX = 128, /* address length, including the terminating 0 */
    OSC_TEXT_MAX = 64,  /* one argument as text */
    OSC_QUEUE = 512,    /* messages waiting between two frames; beyond: dropped, counted */
    OSC_OUT_ARGS = 8    /* arguments of one message sent (osc_send_bundle) */
};

/* One received message. Every argument is kept as a number and as text: numbers as the
 * shortest text that reads back as the same value (float32 with 9 digits), strings as
 * sent, true / false as 1 / 0, so that a parameter value goes through the same parser as
 * `--set key=value`. */
typedef struct osc_msg {
    char path[OSC_PATH_MAX];
    int argc; /* -1: the message could not be used; `bad` says why */
    char types[OSC_MAX_ARGS + 1];
    double num[OSC_MAX_ARGS]; /* NaN for a string that is not a number */
    char text[OSC_MAX_ARGS][OSC_TEXT_MAX];
    char bad[96];
} osc_msg;

typedef struct osc_link osc_link;

/* Listens on host:port when port > 0 (host NULL: 127.0.0.1), and sends to send_to
 * ("HOST:PORT") when it is not NULL. A port that cannot be bound, or a malformed or
 * unresolvable HOST:PORT: BOIDS_ERR_INPUT naming the flag. */
osc_link *osc_create(const char *host, int port, const char *send_to, boids_error *err);
void osc_destroy(osc_link *l);

/* Takes the oldest queued message into m; 0 when none is waiting. *dropped (if not NULL)
 * receives the number of messages dropped on a full queue since the last call. */
int osc_next(osc_link *l, osc_msg *m, unsigned long *dropped);

/* 1 if messages go out (a send_to was given). */
int osc_sends(const osc_link *l);

/* One argument of a message sent: type 'f' (float32, from f), 'i' (int32) or 'h' (int64),
 * both from n. */
typedef struct osc_arg {
    char type;
    double f;
    int64_t n;
} osc_arg;

typedef struct osc_out {
    const char *path;
    int argc;
    osc_arg argv[OSC_OUT_ARGS];
} osc_out;

/* The messages, in order, as one bundle to the send_to target (nothing when there is
 * none). Send failures are ignored: a listener that is not there yet must not stop the
 * show. */
void osc_send_bundle(osc_link *l, const osc_out *msgs, int count);

/* One message (not a bundle: the simplest clients take these only), to the send_to target. */
void osc_send_message(osc_link *l, const osc_out *msg);

/* A message PATH with one string argument (replies to queries), to the send_to target. */
void osc_send_text(osc_link *l, const char *path, const char *text);

#endif
