// Bus messages: structure fields as text, and what typefind found.
#include "GStreamerSupport.h"

// A structure field as text: strings as they are, numbers and booleans serialised
// ("1009979891"); NULL for objects and other types. Free with g_free.
gchar *cgst_structure_field_text(const GstStructure *s, const char *name) {
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

// typefind's "have-type" runs on the streaming thread that found the type; it only posts an
// element message (`media-type`, `probability` 1-100) on the element's bus, where the
// pipeline's bus watch hands it to the GLib thread. No data pointer: nothing to release.
static void cgst_type_found(GstElement *typefind, guint probability, GstCaps *caps, gpointer data) {
    (void)data;
    const gchar *name = (caps && gst_caps_get_size(caps) > 0) ? gst_structure_get_name(gst_caps_get_structure(caps, 0)) : "";
    GstStructure *s = gst_structure_new(CGST_TYPE_FOUND_MESSAGE, "media-type", G_TYPE_STRING, name,
                                        "probability", G_TYPE_UINT, probability, NULL);
    gst_element_post_message(typefind, gst_message_new_element(GST_OBJECT(typefind), s));
}
void cgst_report_type_found(GstElement *typefind) {
    g_signal_connect(typefind, "have-type", G_CALLBACK(cgst_type_found), NULL);
}
