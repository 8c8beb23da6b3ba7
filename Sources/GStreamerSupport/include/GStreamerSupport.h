// GStreamer code that is plain C logic rather than something Swift cannot import: snapshot
// encoding, subtitle text extraction, pad probes and the splice state machine, and the
// streaming-thread callbacks that only post bus messages. `CGStreamer/shim.h` keeps only
// what Swift cannot call directly (variadic functions, macros, constants).
#pragma once
#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdint.h>

// MARK: Bus messages (messages.c)

// A structure field as text: strings as they are, numbers and booleans serialised
// ("1009979891"); NULL for objects and other types. Free with g_free.
gchar *cgst_structure_field_text(const GstStructure *s, const char *name);

// The name of the element message cgst_report_type_found posts.
#define CGST_TYPE_FOUND_MESSAGE "marquee-type-found"

// From now on, `typefind`'s "have-type" posts a CGST_TYPE_FOUND_MESSAGE element message
// (`media-type`, `probability` 1-100) on its bus. The signal runs on a streaming thread; it
// only posts, and the pipeline's bus watch hands the message to the GLib thread.
void cgst_report_type_found(GstElement *typefind);

// MARK: Pads (pads.c)

// The media type of a pad's caps ("video/x-h264"), current or else queried. Free with g_free.
gchar *cgst_pad_media_type(GstPad *pad);

// Sends FLUSH_START into every sink pad of `element`, from the calling thread: streaming
// threads blocked inside the element waiting for more data return.
void cgst_flush_start_sink_pads(GstElement *element);

// Drops everything that would leave `pad` from now on: for an element about to be taken
// out, whose pushes would otherwise fail as not-linked (an error) once unlinked.
void cgst_pad_drop_data(GstPad *pad);

// MARK: Frames (frames.c)

// Width, height and frame rate of raw video caps; FALSE when the caps say no size.
gboolean cgst_caps_video_size(const GstCaps *caps, gint *width, gint *height, gint *fps_n, gint *fps_d);

// The size of the video a pad carries now; FALSE before caps were negotiated.
gboolean cgst_pad_video_size(GstPad *pad, gint *width, gint *height, gint *fps_n, gint *fps_d);

// Encodes a raw video sample as JPEG, scaled to `width` (0: as it is; the height keeps the
// aspect). Blocks for the conversion; safe on any thread. Free the result with g_bytes_unref.
GBytes *cgst_sample_to_jpeg(GstSample *sample, gint width, guint64 timeout);

// MARK: Text (text.c)

// A text buffer's bytes as a NUL-terminated string (g_free it), with its timestamps in ns
// (GST_CLOCK_TIME_NONE when absent) and whether the pad's caps say Pango markup. NULL for
// bitmap subtitles.
gchar *cgst_text_buffer(GstBuffer *buffer, GstPad *pad, guint64 *pts, guint64 *duration, gboolean *markup);

// MARK: Splices (splice.c)

// The application message a splice with a `notify` pipeline posts when its probe has run.
#define CGST_SPLICE_MESSAGE "marquee-splice"

// A splice: up to two links undone and up to two made between two buffers of a running
// pipeline, from an IDLE probe on the pad the data comes through (GStreamer's documented
// way to change links while data flows: nothing is mid-push then). `phase`: 0 waiting, 1 the
// probe is making it, 2 done, 3 a link failed, 4 cancelled before it ran. An IDLE probe can
// be called twice at once (at once from gst_pad_add_probe when the pad looks idle, and from
// the streaming thread before the removal takes effect): the first to move `phase` from 0
// to 1 makes the splice, any other returns. Two references: the probe's (dropped when the
// probe goes) and the caller's (cgst_splice_unref once it has read `phase`). With a `notify`
// pipeline, the probe posts the outcome on its bus: an application message CGST_SPLICE_MESSAGE
// with the final `phase`.
typedef struct {
    GstPad *unlink[2][2];
    GstPad *link[2][2];
    GstElement *sync;  // brought to its parent's state once linked (may be NULL)
    GstPad *then;      // with cgst_splice_when_idle_after: the pad whose IDLE probe makes it
    GstElement *notify;  // the pipeline whose bus hears the outcome (may be NULL)
    gint published;  // set (atomically) before the first probe is added; see splice.c
    gint chained;
    gint phase;
    gint refs;
} CGstSplice;

CGstSplice *cgst_splice_new(void);
void cgst_splice_unref(gpointer data);
// Up to two unlinks and two links (index 0 or 1), made in that order.
void cgst_splice_unlink(CGstSplice *splice, int index, GstPad *src, GstPad *sink);
void cgst_splice_link(CGstSplice *splice, int index, GstPad *src, GstPad *sink);
// An element brought to its parent's state once linked.
void cgst_splice_sync(CGstSplice *splice, GstElement *element);
// The pipeline whose bus hears the outcome.
void cgst_splice_notify(CGstSplice *splice, GstElement *pipeline);
gint cgst_splice_phase(CGstSplice *splice);
// Cancels a splice whose probe has not started; FALSE when it has (then it is running or done).
gboolean cgst_splice_cancel(CGstSplice *splice);
// Makes the splice when `pad` is next idle.
void cgst_splice_when_idle(GstPad *pad, CGstSplice *splice);
// Makes the splice when `first` has been idle once and then `then` is idle.
void cgst_splice_when_idle_after(GstPad *first, GstPad *then, CGstSplice *splice);

// MARK: Library copies (copysrc.c)

// The bytes of one published copy, read on GStreamer's streaming threads (the callbacks must
// be thread-safe). `read` fills up to `size` bytes at `offset` and returns how many (0 at the
// end) or -1 on failure; `release` runs once, when neither the table nor a running element
// holds the copy any more.
typedef struct {
    int64_t (*read)(void *user_data, int64_t offset, void *buffer, size_t size);
    int64_t (*size)(void *user_data);
    void (*release)(void *user_data);
    void *user_data;
} CGstCopySource;

// Registers the `marqueecopysrc` element, the URI handler for `marquee-copy://TOKEN`. Once,
// after gst_init.
gboolean cgst_copy_src_register(void);

// Makes `source` readable as `marquee-copy://TOKEN` (replacing any copy of that token).
void cgst_copy_src_publish(const char *token, const CGstCopySource *source);

// Forgets the token: new opens fail with "not found"; elements that already started keep
// reading until they stop, then `release` runs.
void cgst_copy_src_unpublish(const char *token);

// The scheduling mode of the src pad of the first marqueecopysrc inside `bin` (recursively):
// GST_PAD_MODE_PULL when the demuxer pulls from it; GST_PAD_MODE_NONE when there is none.
GstPadMode cgst_copy_src_pad_mode(GstBin *bin);
