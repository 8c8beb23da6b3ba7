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

// A pad's stream lock (held by the streaming thread while it processes a buffer on the
// pad), taken only when free.
static inline gboolean cgst_pad_stream_trylock(GstPad *pad) { return g_rec_mutex_trylock(GST_PAD_GET_STREAM_LOCK(pad)); }
static inline void cgst_pad_stream_unlock(GstPad *pad) { g_rec_mutex_unlock(GST_PAD_GET_STREAM_LOCK(pad)); }

