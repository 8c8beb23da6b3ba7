// Splices: links changed between two buffers of a running pipeline (see CGstSplice).
#include "GStreamerSupport.h"

void cgst_splice_unref(gpointer data) {
    CGstSplice *splice = data;
    if (!g_atomic_int_dec_and_test(&splice->refs)) return;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            if (splice->unlink[i][j]) gst_object_unref(splice->unlink[i][j]);
            if (splice->link[i][j]) gst_object_unref(splice->link[i][j]);
        }
    if (splice->sync) gst_object_unref(splice->sync);
    if (splice->then) gst_object_unref(splice->then);
    if (splice->notify) gst_object_unref(splice->notify);
    g_free(splice);
}

// What the owner wrote before the probe was added (pads, `sync`, `notify`, `then`, `refs`) is
// made visible to the streaming thread by the pad's lock inside gst_pad_add_probe; GLib's
// futex-based mutexes are invisible to ThreadSanitizer, which then reports those fields as
// races. The owner's atomic store to `published` before adding the probe, and this load at
// each probe's entry, state the same ordering where TSan sees it (as GLibExecutor's job boxes
// do in Swift).
static void cgst_splice_received(CGstSplice *splice) {
    (void)g_atomic_int_get(&splice->published);
}

static void cgst_splice_publish(CGstSplice *splice) {
    g_atomic_int_set(&splice->published, 1);
}

static GstPadProbeReturn cgst_splice_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    CGstSplice *splice = data;
    cgst_splice_received(splice);
    if (!g_atomic_int_compare_and_exchange(&splice->phase, 0, 1)) return GST_PAD_PROBE_REMOVE;
    for (int i = 0; i < 2; i++)
        if (splice->unlink[i][0]) gst_pad_unlink(splice->unlink[i][0], splice->unlink[i][1]);
    gint phase = 2;
    for (int i = 0; i < 2; i++)
        if (splice->link[i][0] && GST_PAD_LINK_FAILED(gst_pad_link(splice->link[i][0], splice->link[i][1]))) phase = 3;
    // Started only once linked: a live source inside would otherwise push into nothing.
    if (splice->sync && phase == 2) gst_element_sync_state_with_parent(splice->sync);
    g_atomic_int_set(&splice->phase, phase);
    // The outcome goes on the pipeline's bus, so its owner hears of it in its bus watch
    // instead of polling `phase`.
    if (splice->notify) {
        GstStructure *s = gst_structure_new(CGST_SPLICE_MESSAGE, "phase", G_TYPE_INT, phase, NULL);
        gst_element_post_message(splice->notify, gst_message_new_application(GST_OBJECT(splice->notify), s));
    }
    return GST_PAD_PROBE_REMOVE;
}

CGstSplice *cgst_splice_new(void) {
    CGstSplice *splice = g_new0(CGstSplice, 1);
    g_atomic_int_set(&splice->refs, 2);
    return splice;
}

static void cgst_splice_set(GstPad *pairs[2][2], int index, GstPad *src, GstPad *sink) {
    pairs[index][0] = gst_object_ref(src);
    pairs[index][1] = gst_object_ref(sink);
}
void cgst_splice_unlink(CGstSplice *splice, int index, GstPad *src, GstPad *sink) { cgst_splice_set(splice->unlink, index, src, sink); }
void cgst_splice_link(CGstSplice *splice, int index, GstPad *src, GstPad *sink) { cgst_splice_set(splice->link, index, src, sink); }
void cgst_splice_sync(CGstSplice *splice, GstElement *element) { splice->sync = gst_object_ref(element); }
void cgst_splice_notify(CGstSplice *splice, GstElement *pipeline) { splice->notify = gst_object_ref(pipeline); }
gint cgst_splice_phase(CGstSplice *splice) { return g_atomic_int_get(&splice->phase); }

// Cancels a splice whose probe has not started; FALSE when it has (then it is running or done).
gboolean cgst_splice_cancel(CGstSplice *splice) {
    if (!g_atomic_int_compare_and_exchange(&splice->phase, 0, 4)) return FALSE;
    // The probe will not touch `notify` now. Let the pipeline go: the probe may stay on its
    // pad (holding the splice) for as long as the pipeline lives, and the splice's reference
    // to the pipeline would keep it alive for ever.
    GstElement *notify = g_atomic_pointer_exchange(&splice->notify, NULL);
    if (notify) gst_object_unref(notify);
    return TRUE;
}

void cgst_splice_when_idle(GstPad *pad, CGstSplice *splice) {
    cgst_splice_publish(splice);
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_IDLE, cgst_splice_probe, splice, cgst_splice_unref);
}

static GstPadProbeReturn cgst_splice_first_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    CGstSplice *splice = data;
    cgst_splice_received(splice);
    if (g_atomic_int_get(&splice->phase) != 0 || !g_atomic_int_compare_and_exchange(&splice->chained, 0, 1))
        return GST_PAD_PROBE_REMOVE;
    g_atomic_int_inc(&splice->refs);  // the second probe's
    gst_pad_add_probe(splice->then, GST_PAD_PROBE_TYPE_IDLE, cgst_splice_probe, splice, cgst_splice_unref);
    return GST_PAD_PROBE_REMOVE;
}

// Makes the splice when `first` has been idle once and then `then` is idle: for a splice that
// takes out an element whose output was already cut off (cgst_pad_drop_data on `first`), so
// that none of its pushes is still on its way downstream when the links change.
void cgst_splice_when_idle_after(GstPad *first, GstPad *then, CGstSplice *splice) {
    splice->then = gst_object_ref(then);
    cgst_splice_publish(splice);
    gst_pad_add_probe(first, GST_PAD_PROBE_TYPE_IDLE, cgst_splice_first_probe, splice, cgst_splice_unref);
}
