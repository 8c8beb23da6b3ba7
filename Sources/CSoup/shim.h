// What Swift cannot import from libsoup-3 directly: the variadic constructor and
// g_signal_connect (a macro). Everything else is called directly from Swift.
#pragma once
#include <libsoup/soup.h>
#include <string.h>

static inline SoupServer *csoup_server_new(void) {
    return soup_server_new("server-header", "marquee", NULL);
}

static inline gulong csoup_signal_connect(gpointer instance, const char *signal, GCallback cb,
                                          gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, cb, data, destroy, (GConnectFlags)0);
}

// soup_session_new is variadic too: the daemon's one client session.
static inline SoupSession *csoup_session_new(const char *user_agent, guint timeout_seconds) {
    return soup_session_new_with_options("user-agent", user_agent, "timeout", timeout_seconds, NULL);
}

// The size of a request's header section (names and values) and the number of headers,
// for the server's header limits; a C callback keeps the walk free of Swift closures.
typedef struct { gsize bytes; guint count; } csoup_header_tally;

static inline void csoup_tally_one(const char *name, const char *value, gpointer data) {
    csoup_header_tally *tally = data;
    tally->bytes += strlen(name) + strlen(value);
    tally->count += 1;
}

static inline csoup_header_tally csoup_headers_tally(SoupMessageHeaders *headers) {
    csoup_header_tally tally = { 0, 0 };
    soup_message_headers_foreach(headers, csoup_tally_one, &tally);
    return tally;
}
