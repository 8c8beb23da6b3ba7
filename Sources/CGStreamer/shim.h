// What Swift cannot import from GStreamer/GLib directly: variadic setters and getters,
// macro constants and g_signal_connect. Everything else is called directly from Swift.
#pragma once
#include <gst/gst.h>
#include <gst/pbutils/pbutils.h>
#include <gst/video/video.h>
#include <glib-unix.h>
#include <malloc.h>  // malloc_trim, for Heap.trim()

// GST_CLOCK_TIME_NONE imports as an overflowing literal; GST_SECOND is a macro.
static const guint64 cgst_clock_time_none = GST_CLOCK_TIME_NONE;
static const guint64 cgst_second = GST_SECOND;

// g_object_set/get are variadic: one typed wrapper per property type we use.
static inline void cgst_set_string(gpointer o, const char *p, const char *v) { g_object_set(o, p, v, NULL); }
static inline void cgst_set_bool(gpointer o, const char *p, gboolean v) { g_object_set(o, p, v, NULL); }
static inline void cgst_set_int(gpointer o, const char *p, gint v) { g_object_set(o, p, v, NULL); }
static inline void cgst_set_uint(gpointer o, const char *p, guint v) { g_object_set(o, p, v, NULL); }
static inline void cgst_set_int64(gpointer o, const char *p, gint64 v) { g_object_set(o, p, v, NULL); }
static inline void cgst_set_double(gpointer o, const char *p, gdouble v) { g_object_set(o, p, v, NULL); }
static inline void cgst_set_object(gpointer o, const char *p, gpointer v) { g_object_set(o, p, v, NULL); }
static inline gboolean cgst_get_bool(gpointer o, const char *p) { gboolean v = FALSE; g_object_get(o, p, &v, NULL); return v; }
static inline gdouble cgst_get_double(gpointer o, const char *p) { gdouble v = 0; g_object_get(o, p, &v, NULL); return v; }
static inline gint64 cgst_get_int64(gpointer o, const char *p) { gint64 v = 0; g_object_get(o, p, &v, NULL); return v; }
static inline gboolean cgst_has_property(gpointer o, const char *p) {
    return g_object_class_find_property(G_OBJECT_GET_CLASS(o), p) != NULL;
}
// Sets an enum or flags property from its nick ("snap-before"), as gst-launch does.
static inline void cgst_set_from_string(gpointer o, const char *p, const char *v) { gst_util_set_object_arg(G_OBJECT(o), p, v); }

// g_signal_connect is a macro over g_signal_connect_data.
static inline gulong cgst_signal_connect(gpointer instance, const char *signal, GCallback cb,
                                         gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, cb, data, destroy, (GConnectFlags)0);
}

// gst_structure_set is variadic: the two field types the pipeline worker's messages carry.
static inline void cgst_structure_set_int(GstStructure *s, const char *f, gint v) { gst_structure_set(s, f, G_TYPE_INT, v, NULL); }
static inline void cgst_structure_set_int64(GstStructure *s, const char *f, gint64 v) { gst_structure_set(s, f, G_TYPE_INT64, v, NULL); }

// A structure field as text: strings as they are, numbers and booleans serialised
// ("1009979891"); NULL for objects and other types. Free with g_free.
static inline gchar *cgst_structure_field_text(const GstStructure *s, const char *name) {
    const GValue *v = gst_structure_get_value(s, name);
    if (v == NULL) return NULL;
    if (G_VALUE_HOLDS_STRING(v)) return g_value_dup_string(v);
    switch (G_TYPE_FUNDAMENTAL(G_VALUE_TYPE(v))) {
    case G_TYPE_BOOLEAN: case G_TYPE_INT: case G_TYPE_UINT: case G_TYPE_LONG: case G_TYPE_ULONG:
    case G_TYPE_INT64: case G_TYPE_UINT64: case G_TYPE_FLOAT: case G_TYPE_DOUBLE:
        return gst_value_serialize(v);
    default:
        return NULL;
    }
}

// The media type of a pad's caps ("video/x-h264"), current or else queried. Free with g_free.
static inline gchar *cgst_pad_media_type(GstPad *pad) {
    GstCaps *caps = gst_pad_get_current_caps(pad);
    if (caps == NULL) caps = gst_pad_query_caps(pad, NULL);
    if (caps == NULL) return NULL;
    gchar *name = NULL;
    if (gst_caps_get_size(caps) > 0) name = g_strdup(gst_structure_get_name(gst_caps_get_structure(caps, 0)));
    gst_caps_unref(caps);
    return name;
}

// Sets a GstCaps property from caps text written in code ("video/x-raw,width=640").
static inline gboolean cgst_set_caps_from_string(gpointer o, const char *p, const char *caps_text) {
    GstCaps *caps = gst_caps_from_string(caps_text);
    if (caps == NULL) return FALSE;
    g_object_set(o, p, caps, NULL);
    gst_caps_unref(caps);
    return TRUE;
}

static inline void cgst_set_uint64(gpointer o, const char *p, guint64 v) { g_object_set(o, p, v, NULL); }

// A sample property ("last-sample" of a sink): a new reference, or NULL.
static inline GstSample *cgst_get_sample(gpointer o, const char *p) {
    GstSample *sample = NULL;
    g_object_get(o, p, &sample, NULL);
    return sample;
}

// Width, height and frame rate of raw video caps; FALSE when the caps say no size.
static inline gboolean cgst_caps_video_size(const GstCaps *caps, gint *width, gint *height, gint *fps_n, gint *fps_d) {
    if (caps == NULL || gst_caps_get_size(caps) == 0) return FALSE;
    const GstStructure *s = gst_caps_get_structure(caps, 0);
    *fps_n = 0; *fps_d = 1;
    gst_structure_get_fraction(s, "framerate", fps_n, fps_d);
    return gst_structure_get_int(s, "width", width) && gst_structure_get_int(s, "height", height);
}

// The size of the video a pad carries now; FALSE before caps were negotiated.
static inline gboolean cgst_pad_video_size(GstPad *pad, gint *width, gint *height, gint *fps_n, gint *fps_d) {
    GstCaps *caps = gst_pad_get_current_caps(pad);
    gboolean ok = cgst_caps_video_size(caps, width, height, fps_n, fps_d);
    if (caps) gst_caps_unref(caps);
    return ok;
}

// Encodes a raw video sample as JPEG, scaled to `width` (0: as it is; the height keeps the
// aspect). Blocks for the conversion; safe on any thread. Free the result with g_bytes_unref.
static inline GBytes *cgst_sample_to_jpeg(GstSample *sample, gint width, guint64 timeout) {
    gint in_w = 0, in_h = 0, fn = 0, fd = 1;
    if (!cgst_caps_video_size(gst_sample_get_caps(sample), &in_w, &in_h, &fn, &fd) || in_w <= 0 || in_h <= 0) return NULL;
    GstCaps *caps = gst_caps_new_empty_simple("image/jpeg");
    if (width > 0) {
        gint height = (gint)((gint64)in_h * width / in_w);
        gst_caps_set_simple(caps, "width", G_TYPE_INT, width, "height", G_TYPE_INT, height > 0 ? height : 1,
                            "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL);
    }
    GError *error = NULL;
    GstSample *jpeg = gst_video_convert_sample(sample, caps, timeout, &error);
    gst_caps_unref(caps);
    if (error) g_error_free(error);
    if (jpeg == NULL) return NULL;
    GBytes *bytes = NULL;
    GstBuffer *buffer = gst_sample_get_buffer(jpeg);
    GstMapInfo map;
    if (buffer && gst_buffer_map(buffer, &map, GST_MAP_READ)) {
        bytes = g_bytes_new(map.data, map.size);
        gst_buffer_unmap(buffer, &map);
    }
    gst_sample_unref(jpeg);
    return bytes;
}

// A text buffer's bytes as a NUL-terminated string (g_free it), with its timestamps in ns
// (GST_CLOCK_TIME_NONE when absent) and whether the pad's caps say Pango markup.
static inline gchar *cgst_text_buffer(GstBuffer *buffer, GstPad *pad, guint64 *pts, guint64 *duration, gboolean *markup) {
    *pts = GST_BUFFER_PTS(buffer);
    *duration = GST_BUFFER_DURATION(buffer);
    *markup = FALSE;
    GstCaps *caps = pad ? gst_pad_get_current_caps(pad) : NULL;
    if (caps) {
        const GstStructure *s = gst_caps_get_size(caps) ? gst_caps_get_structure(caps, 0) : NULL;
        gboolean text = s && gst_structure_has_name(s, "text/x-raw");
        const gchar *format = s ? gst_structure_get_string(s, "format") : NULL;
        *markup = format && g_str_equal(format, "pango-markup");
        gst_caps_unref(caps);
        if (!text) return NULL;  // bitmap subtitles (DVD, PGS) are not text
    }
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_READ)) return NULL;
    gchar *copy = g_strndup((const gchar *)map.data, map.size);
    gst_buffer_unmap(buffer, &map);
    return copy;
}

// A pad's stream lock (held by the streaming thread while it processes a buffer on the
// pad), taken only when free.
static inline gboolean cgst_pad_stream_trylock(GstPad *pad) { return g_rec_mutex_trylock(GST_PAD_GET_STREAM_LOCK(pad)); }
static inline void cgst_pad_stream_unlock(GstPad *pad) { g_rec_mutex_unlock(GST_PAD_GET_STREAM_LOCK(pad)); }

// Sends FLUSH_START into every sink pad of `element`, from the calling thread: streaming
// threads blocked inside the element waiting for more data return.
static inline void cgst_flush_start_sink_pads(GstElement *element) {
    GstIterator *it = gst_element_iterate_sink_pads(element);
    GValue item = G_VALUE_INIT;
    gboolean done = FALSE;
    while (!done) {
        switch (gst_iterator_next(it, &item)) {
        case GST_ITERATOR_OK:
            gst_pad_send_event(GST_PAD(g_value_get_object(&item)), gst_event_new_flush_start());
            g_value_reset(&item);
            break;
        case GST_ITERATOR_RESYNC: gst_iterator_resync(it); break;
        default: done = TRUE; break;
        }
    }
    g_value_unset(&item);
    gst_iterator_free(it);
}

// A splice: up to two links undone and up to two made between two buffers of a running
// pipeline, from an IDLE probe on the pad the data comes through (GStreamer's documented
// way to change links while data flows: nothing is mid-push then). `phase`: 0 waiting, 1 the
// probe is making it, 2 done, 3 a link failed, 4 cancelled before it ran. An IDLE probe can
// be called twice at once (at once from gst_pad_add_probe when the pad looks idle, and from
// the streaming thread before the removal takes effect): the first to move `phase` from 0
// to 1 makes the splice, any other returns. Two references: the probe's (dropped when the
// probe goes) and the caller's (cgst_splice_unref once it has read `phase`).
typedef struct {
    GstPad *unlink[2][2];
    GstPad *link[2][2];
    GstElement *sync;  // brought to its parent's state once linked (may be NULL)
    GstPad *then;      // with cgst_splice_when_idle_after: the pad whose IDLE probe makes it
    gint chained;
    gint phase;
    gint refs;
} CGstSplice;

static inline void cgst_splice_unref(gpointer data) {
    CGstSplice *splice = data;
    if (!g_atomic_int_dec_and_test(&splice->refs)) return;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            if (splice->unlink[i][j]) gst_object_unref(splice->unlink[i][j]);
            if (splice->link[i][j]) gst_object_unref(splice->link[i][j]);
        }
    if (splice->sync) gst_object_unref(splice->sync);
    if (splice->then) gst_object_unref(splice->then);
    g_free(splice);
}

static inline GstPadProbeReturn cgst_splice_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    CGstSplice *splice = data;
    if (!g_atomic_int_compare_and_exchange(&splice->phase, 0, 1)) return GST_PAD_PROBE_REMOVE;
    for (int i = 0; i < 2; i++)
        if (splice->unlink[i][0]) gst_pad_unlink(splice->unlink[i][0], splice->unlink[i][1]);
    gint phase = 2;
    for (int i = 0; i < 2; i++)
        if (splice->link[i][0] && GST_PAD_LINK_FAILED(gst_pad_link(splice->link[i][0], splice->link[i][1]))) phase = 3;
    // Started only once linked: a live source inside would otherwise push into nothing.
    if (splice->sync && phase == 2) gst_element_sync_state_with_parent(splice->sync);
    g_atomic_int_set(&splice->phase, phase);
    return GST_PAD_PROBE_REMOVE;
}

static inline CGstSplice *cgst_splice_new(void) {
    CGstSplice *splice = g_new0(CGstSplice, 1);
    splice->refs = 2;
    return splice;
}

static inline void cgst_splice_set(GstPad *pairs[2][2], int index, GstPad *src, GstPad *sink) {
    pairs[index][0] = gst_object_ref(src);
    pairs[index][1] = gst_object_ref(sink);
}
static inline void cgst_splice_unlink(CGstSplice *splice, int index, GstPad *src, GstPad *sink) { cgst_splice_set(splice->unlink, index, src, sink); }
static inline void cgst_splice_link(CGstSplice *splice, int index, GstPad *src, GstPad *sink) { cgst_splice_set(splice->link, index, src, sink); }
static inline void cgst_splice_sync(CGstSplice *splice, GstElement *element) { splice->sync = gst_object_ref(element); }
static inline gint cgst_splice_phase(CGstSplice *splice) { return g_atomic_int_get(&splice->phase); }

// Cancels a splice whose probe has not started; FALSE when it has (then it is running or done).
static inline gboolean cgst_splice_cancel(CGstSplice *splice) {
    return g_atomic_int_compare_and_exchange(&splice->phase, 0, 4);
}

static inline void cgst_splice_when_idle(GstPad *pad, CGstSplice *splice) {
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_IDLE, cgst_splice_probe, splice, cgst_splice_unref);
}

static inline GstPadProbeReturn cgst_splice_first_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    CGstSplice *splice = data;
    if (g_atomic_int_get(&splice->phase) != 0 || !g_atomic_int_compare_and_exchange(&splice->chained, 0, 1))
        return GST_PAD_PROBE_REMOVE;
    g_atomic_int_inc(&splice->refs);  // the second probe's
    gst_pad_add_probe(splice->then, GST_PAD_PROBE_TYPE_IDLE, cgst_splice_probe, splice, cgst_splice_unref);
    return GST_PAD_PROBE_REMOVE;
}

// Makes the splice when `first` has been idle once and then `then` is idle: for a splice that
// takes out an element whose output was already cut off (cgst_pad_drop_data on `first`), so
// that none of its pushes is still on its way downstream when the links change.
static inline void cgst_splice_when_idle_after(GstPad *first, GstPad *then, CGstSplice *splice) {
    splice->then = gst_object_ref(then);
    gst_pad_add_probe(first, GST_PAD_PROBE_TYPE_IDLE, cgst_splice_first_probe, splice, cgst_splice_unref);
}

static inline GstPadProbeReturn cgst_drop_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    return GST_PAD_PROBE_DROP;
}

// Drops everything that would leave `pad` from now on: for an element about to be taken
// out, whose pushes would otherwise fail as not-linked (an error) once unlinked.
static inline void cgst_pad_drop_data(GstPad *pad) {
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM, cgst_drop_probe, NULL, NULL);
}

// The name of the element message cgst_report_type_found posts.
#define CGST_TYPE_FOUND_MESSAGE "marquee-type-found"

// typefind's "have-type" runs on the streaming thread that found the type; it only posts an
// element message (`media-type`, `probability` 1-100) on the element's bus, where the
// pipeline's bus watch hands it to the GLib thread. No data pointer: nothing to release.
static inline void cgst_type_found(GstElement *typefind, guint probability, GstCaps *caps, gpointer data) {
    (void)data;
    const gchar *name = (caps && gst_caps_get_size(caps) > 0) ? gst_structure_get_name(gst_caps_get_structure(caps, 0)) : "";
    GstStructure *s = gst_structure_new(CGST_TYPE_FOUND_MESSAGE, "media-type", G_TYPE_STRING, name,
                                        "probability", G_TYPE_UINT, probability, NULL);
    gst_element_post_message(typefind, gst_message_new_element(GST_OBJECT(typefind), s));
}
static inline void cgst_report_type_found(GstElement *typefind) {
    g_signal_connect(typefind, "have-type", G_CALLBACK(cgst_type_found), NULL);
}

