// Pads: what flows through them, and cutting it off.
#include "GStreamerSupport.h"

// The media type of a pad's caps ("video/x-h264"), current or else queried. Free with g_free.
gchar *cgst_pad_media_type(GstPad *pad) {
    GstCaps *caps = gst_pad_get_current_caps(pad);
    if (caps == NULL) caps = gst_pad_query_caps(pad, NULL);
    if (caps == NULL) return NULL;
    gchar *name = NULL;
    if (gst_caps_get_size(caps) > 0) name = g_strdup(gst_structure_get_name(gst_caps_get_structure(caps, 0)));
    gst_caps_unref(caps);
    return name;
}

// Sends FLUSH_START into every sink pad of `element`, from the calling thread: streaming
// threads blocked inside the element waiting for more data return.
void cgst_flush_start_sink_pads(GstElement *element) {
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

static GstPadProbeReturn cgst_drop_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad; (void)info; (void)data;
    return GST_PAD_PROBE_DROP;
}

// Drops everything that would leave `pad` from now on: for an element about to be taken
// out, whose pushes would otherwise fail as not-linked (an error) once unlinked.
void cgst_pad_drop_data(GstPad *pad) {
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM, cgst_drop_probe, NULL, NULL);
}
