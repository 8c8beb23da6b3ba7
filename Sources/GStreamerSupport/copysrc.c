// marqueecopysrc: reads an offline library copy inside the process, for `marquee-copy://TOKEN`.
//
// Why: the copy used to reach playbin3 through the loopback HTTP server, so qtdemux ran in
// push mode and every seek was an upstream byte seek plus a new Range request. A GstBaseSrc
// that is seekable, knows its size and answers `fill` at any offset lets basesrc offer pull
// mode, and qtdemux then reads it like filesrc reads a local file.
//
// The bytes come from a table of callbacks the Swift side publishes per token
// (cgst_copy_src_publish). Entries are reference counted: the table holds one reference and
// every started element another, so a copy unpublished (or deleted) while it plays stays
// readable until the element stops; `release` runs once, when the last reference goes.
#include "GStreamerSupport.h"
#include <gst/base/gstbasesrc.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define CGST_COPY_SCHEME "marquee-copy"

typedef struct {
    CGstCopySource source;
    gint refs;
} CopyEntry;

static GMutex copy_lock;
static GHashTable *copy_table;  // token (owned) -> CopyEntry*, under copy_lock

static void copy_entry_unref(CopyEntry *entry) {
    if (!g_atomic_int_dec_and_test(&entry->refs)) return;
    if (entry->source.release) entry->source.release(entry->source.user_data);
    g_free(entry);
}

void cgst_copy_src_publish(const char *token, const CGstCopySource *source) {
    CopyEntry *entry = g_new0(CopyEntry, 1);
    entry->source = *source;
    entry->refs = 1;
    g_mutex_lock(&copy_lock);
    if (copy_table == NULL) copy_table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)copy_entry_unref);
    g_hash_table_replace(copy_table, g_strdup(token), entry);
    g_mutex_unlock(&copy_lock);
}

void cgst_copy_src_unpublish(const char *token) {
    g_mutex_lock(&copy_lock);
    if (copy_table != NULL) g_hash_table_remove(copy_table, token);
    g_mutex_unlock(&copy_lock);
}

static CopyEntry *copy_entry_lookup(const char *token) {
    CopyEntry *entry = NULL;
    g_mutex_lock(&copy_lock);
    if (copy_table != NULL) entry = g_hash_table_lookup(copy_table, token);
    if (entry != NULL) g_atomic_int_inc(&entry->refs);
    g_mutex_unlock(&copy_lock);
    return entry;
}

// MARK: The element

typedef struct {
    GstBaseSrc parent;
    // `uri`, `entry` and `size` are under `lock`, a pthread mutex rather than the object lock:
    // GLib's GMutex is futex-based and invisible to ThreadSanitizer, which then reported the
    // URI's reads and writes (both under GST_OBJECT_LOCK) as a race.
    pthread_mutex_t lock;
    gchar *uri;
    CopyEntry *entry;    // between start and stop
    guint64 size;
} MarqueeCopySrc;

typedef struct {
    GstBaseSrcClass parent_class;
} MarqueeCopySrcClass;

static void marquee_copy_src_uri_handler_init(gpointer iface, gpointer data);

G_DEFINE_TYPE_WITH_CODE(MarqueeCopySrc, marquee_copy_src, GST_TYPE_BASE_SRC,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_URI_HANDLER, marquee_copy_src_uri_handler_init))

enum { PROP_0, PROP_LOCATION };

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static void marquee_copy_src_init(MarqueeCopySrc *self) {
    pthread_mutex_init(&self->lock, NULL);
    // Bytes at any offset: basesrc answers seeks and offers pull mode (random access).
    gst_base_src_set_format(GST_BASE_SRC(self), GST_FORMAT_BYTES);
}

static void marquee_copy_src_finalize(GObject *object) {
    MarqueeCopySrc *self = (MarqueeCopySrc *)object;
    g_free(self->uri);
    if (self->entry) copy_entry_unref(self->entry);
    pthread_mutex_destroy(&self->lock);
    G_OBJECT_CLASS(marquee_copy_src_parent_class)->finalize(object);
}

static gboolean marquee_copy_src_set_uri(MarqueeCopySrc *self, const gchar *uri, GError **error) {
    if (uri == NULL || !g_str_has_prefix(uri, CGST_COPY_SCHEME "://") || uri[strlen(CGST_COPY_SCHEME "://")] == '\0') {
        g_set_error(error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI, "not a " CGST_COPY_SCHEME ":// URI: %s", uri ? uri : "(null)");
        return FALSE;
    }
    GST_OBJECT_LOCK(self);
    gboolean stopped = GST_STATE(self) == GST_STATE_NULL || GST_STATE(self) == GST_STATE_READY;
    GST_OBJECT_UNLOCK(self);
    if (!stopped) {
        g_set_error(error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE, "the URI cannot change while the source runs");
        return FALSE;
    }
    pthread_mutex_lock(&self->lock);
    g_free(self->uri);
    self->uri = g_strdup(uri);
    pthread_mutex_unlock(&self->lock);
    return TRUE;
}

static void marquee_copy_src_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    if (id == PROP_LOCATION) marquee_copy_src_set_uri((MarqueeCopySrc *)object, g_value_get_string(value), NULL);
    else G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void marquee_copy_src_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    MarqueeCopySrc *self = (MarqueeCopySrc *)object;
    if (id == PROP_LOCATION) {
        pthread_mutex_lock(&self->lock);
        g_value_set_string(value, self->uri);
        pthread_mutex_unlock(&self->lock);
    } else G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static gboolean marquee_copy_src_start(GstBaseSrc *src) {
    MarqueeCopySrc *self = (MarqueeCopySrc *)src;
    pthread_mutex_lock(&self->lock);
    gchar *token = self->uri ? g_strdup(self->uri + strlen(CGST_COPY_SCHEME "://")) : NULL;
    pthread_mutex_unlock(&self->lock);
    CopyEntry *entry = token ? copy_entry_lookup(token) : NULL;
    if (entry == NULL) {
        GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("No library copy is published as '%s'.", token ? token : "(no uri)"),
                          ("unknown " CGST_COPY_SCHEME " token"));
        g_free(token);
        return FALSE;
    }
    g_free(token);
    int64_t size = entry->source.size(entry->source.user_data);
    pthread_mutex_lock(&self->lock);
    self->entry = entry;
    self->size = size < 0 ? 0 : (guint64)size;
    pthread_mutex_unlock(&self->lock);
    return TRUE;
}

static gboolean marquee_copy_src_stop(GstBaseSrc *src) {
    MarqueeCopySrc *self = (MarqueeCopySrc *)src;
    pthread_mutex_lock(&self->lock);
    CopyEntry *entry = self->entry;
    self->entry = NULL;
    pthread_mutex_unlock(&self->lock);
    if (entry) copy_entry_unref(entry);
    return TRUE;
}

static gboolean marquee_copy_src_is_seekable(GstBaseSrc *src) { (void)src; return TRUE; }

static gboolean marquee_copy_src_get_size(GstBaseSrc *src, guint64 *size) {
    MarqueeCopySrc *self = (MarqueeCopySrc *)src;
    pthread_mutex_lock(&self->lock);
    gboolean known = self->entry != NULL;
    if (known) *size = self->size;
    pthread_mutex_unlock(&self->lock);
    return known;
}

// Fills `buffer` (basesrc allocated `length` bytes) from `offset`; a short read near the end
// shrinks it, a read at or past the end is EOS. Runs on a streaming thread; the callback is
// thread-safe (EncryptedFileReader).
static GstFlowReturn marquee_copy_src_fill(GstBaseSrc *src, guint64 offset, guint length, GstBuffer *buffer) {
    MarqueeCopySrc *self = (MarqueeCopySrc *)src;
    // The entry stays valid while the element runs (stop drops it after the streaming thread
    // has ended); the lock is only for what ThreadSanitizer can see.
    pthread_mutex_lock(&self->lock);
    CopyEntry *entry = self->entry;
    guint64 total = self->size;
    pthread_mutex_unlock(&self->lock);
    if (entry == NULL) return GST_FLOW_FLUSHING;
    if (offset >= total) return GST_FLOW_EOS;
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_WRITE)) {
        GST_ELEMENT_ERROR(self, RESOURCE, WRITE, (NULL), ("cannot map the buffer"));
        return GST_FLOW_ERROR;
    }
    gsize want = MIN((guint64)length, total - offset);
    gsize done = 0;
    while (done < want) {
        int64_t n = entry->source.read(entry->source.user_data, (int64_t)(offset + done), map.data + done, want - done);
        if (n < 0) {
            gst_buffer_unmap(buffer, &map);
            GST_ELEMENT_ERROR(self, RESOURCE, READ, ("Could not read the library copy."), ("read failed at offset %" G_GUINT64_FORMAT, offset + done));
            return GST_FLOW_ERROR;
        }
        if (n == 0) break;  // shorter than it said: what was read is what there is
        done += (gsize)n;
    }
    gst_buffer_unmap(buffer, &map);
    if (done == 0) return GST_FLOW_EOS;
    gst_buffer_resize(buffer, 0, done);
    GST_BUFFER_OFFSET(buffer) = offset;
    GST_BUFFER_OFFSET_END(buffer) = offset + done;
    return GST_FLOW_OK;
}

static void marquee_copy_src_class_init(MarqueeCopySrcClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseSrcClass *base_class = GST_BASE_SRC_CLASS(klass);
    object_class->finalize = marquee_copy_src_finalize;
    object_class->set_property = marquee_copy_src_set_property;
    object_class->get_property = marquee_copy_src_get_property;
    g_object_class_install_property(object_class, PROP_LOCATION,
        g_param_spec_string("location", "Location", "The " CGST_COPY_SCHEME ":// URI", NULL,
                            G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(element_class, "Marquee library copy source", "Source/File",
                                          "Reads an offline library copy in pull mode", "Marquee");
    base_class->start = marquee_copy_src_start;
    base_class->stop = marquee_copy_src_stop;
    base_class->is_seekable = marquee_copy_src_is_seekable;
    base_class->get_size = marquee_copy_src_get_size;
    base_class->fill = marquee_copy_src_fill;
}

// MARK: URI handler

static GstURIType uri_get_type(GType type) { (void)type; return GST_URI_SRC; }

static const gchar *const *uri_get_protocols(GType type) {
    (void)type;
    static const gchar *protocols[] = {CGST_COPY_SCHEME, NULL};
    return protocols;
}

static gchar *uri_get_uri(GstURIHandler *handler) {
    MarqueeCopySrc *self = (MarqueeCopySrc *)handler;
    pthread_mutex_lock(&self->lock);
    gchar *uri = g_strdup(self->uri);
    pthread_mutex_unlock(&self->lock);
    return uri;
}

static gboolean uri_set_uri(GstURIHandler *handler, const gchar *uri, GError **error) {
    return marquee_copy_src_set_uri((MarqueeCopySrc *)handler, uri, error);
}

static void marquee_copy_src_uri_handler_init(gpointer iface, gpointer data) {
    (void)data;
    GstURIHandlerInterface *handler = iface;
    handler->get_type = uri_get_type;
    handler->get_protocols = uri_get_protocols;
    handler->get_uri = uri_get_uri;
    handler->set_uri = uri_set_uri;
}

gboolean cgst_copy_src_register(void) {
    return gst_element_register(NULL, "marqueecopysrc", GST_RANK_PRIMARY, marquee_copy_src_get_type());
}

// The scheduling mode of the src pad of the first marqueecopysrc inside `bin` (searched
// recursively): GST_PAD_MODE_PULL once qtdemux pulls from it, GST_PAD_MODE_NONE when there
// is no such element. For tests and diagnostics.
GstPadMode cgst_copy_src_pad_mode(GstBin *bin) {
    GstPadMode mode = GST_PAD_MODE_NONE;
    GstIterator *it = gst_bin_iterate_all_by_element_factory_name(bin, "marqueecopysrc");
    GValue item = G_VALUE_INIT;
    if (it != NULL && gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        GstPad *pad = gst_element_get_static_pad(GST_ELEMENT(g_value_get_object(&item)), "src");
        if (pad != NULL) {
            mode = GST_PAD_MODE(pad);
            gst_object_unref(pad);
        }
        g_value_unset(&item);
    }
    if (it != NULL) gst_iterator_free(it);
    return mode;
}
