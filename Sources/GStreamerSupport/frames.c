// Video frames: their size, and JPEG snapshots of them.
#include "GStreamerSupport.h"

// Width, height and frame rate of raw video caps; FALSE when the caps say no size.
gboolean cgst_caps_video_size(const GstCaps *caps, gint *width, gint *height, gint *fps_n, gint *fps_d) {
    if (caps == NULL || gst_caps_get_size(caps) == 0) return FALSE;
    const GstStructure *s = gst_caps_get_structure(caps, 0);
    *fps_n = 0; *fps_d = 1;
    gst_structure_get_fraction(s, "framerate", fps_n, fps_d);
    return gst_structure_get_int(s, "width", width) && gst_structure_get_int(s, "height", height);
}

// The size of the video a pad carries now; FALSE before caps were negotiated.
gboolean cgst_pad_video_size(GstPad *pad, gint *width, gint *height, gint *fps_n, gint *fps_d) {
    GstCaps *caps = gst_pad_get_current_caps(pad);
    gboolean ok = cgst_caps_video_size(caps, width, height, fps_n, fps_d);
    if (caps) gst_caps_unref(caps);
    return ok;
}

// Encodes a raw video sample as JPEG, scaled to `width` (0: as it is; the height keeps the
// aspect). Blocks for the conversion; safe on any thread. Free the result with g_bytes_unref.
GBytes *cgst_sample_to_jpeg(GstSample *sample, gint width, guint64 timeout) {
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
