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

// The offline library's download session: an I/O timeout, more connections per host than
// libsoup's 2 (several items may come from one CDN at once), and no content decoder: a
// download stores the bytes as the origin sends them, so that byte ranges and lengths, which
// count those bytes, stay true across a resume.
static inline SoupSession *csoup_download_session_new(guint timeout_seconds, int max_conns_per_host) {
    SoupSession *session = soup_session_new_with_options("timeout", timeout_seconds,
                                                         "max-conns-per-host", max_conns_per_host, NULL);
    soup_session_remove_feature_by_type(session, SOUP_TYPE_CONTENT_DECODER);
    return session;
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

// libsoup 3.2 leaves a kept-alive connection whose client closed it while idle in
// CLOSE_WAIT for ever (its descriptor too; fixed upstream in 3.3). After each reply the
// server watches the socket once: end-of-file (or an error) closes it; incoming bytes (the
// next request) end the watch and libsoup reads them as usual. The GSource holds its own
// reference to the socket and lives on the default (GLib) main context until it fires.
static gboolean csoup_idle_socket_ready(GSocket *socket, GIOCondition condition, gpointer data) {
    (void)data;
    // Readable with nothing to read is the end of file (FIONREAD says 0); -1 is an error.
    gssize available = g_socket_get_available_bytes(socket);
    if ((condition & (G_IO_HUP | G_IO_ERR)) || available <= 0) {
        g_socket_close(socket, NULL);
    }
    return G_SOURCE_REMOVE;
}

static inline void csoup_watch_idle_socket(GSocket *socket) {
    if (socket == NULL || g_socket_is_closed(socket)) return;
    GSource *source = g_socket_create_source(socket, (GIOCondition)(G_IO_IN | G_IO_HUP | G_IO_ERR), NULL);
    g_source_set_callback(source, (GSourceFunc)(void (*)(void))csoup_idle_socket_ready, NULL, NULL);
    g_source_attach(source, NULL);
    g_source_unref(source);
}
