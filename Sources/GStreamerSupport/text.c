// Subtitle text out of buffers.
#include "GStreamerSupport.h"

// A text buffer's bytes as a NUL-terminated string (g_free it), with its timestamps in ns
// (GST_CLOCK_TIME_NONE when absent) and whether the pad's caps say Pango markup.
gchar *cgst_text_buffer(GstBuffer *buffer, GstPad *pad, guint64 *pts, guint64 *duration, gboolean *markup) {
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
