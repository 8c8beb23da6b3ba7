// Subtitle cues with math: text between `$$` pairs is TeX for KaTeX, everything else is
// plain text. Cue text comes from media files, so it is never parsed as HTML: text goes
// in as text nodes and KaTeX renders math into spans of its own making.

const katexOptions = {
  throwOnError: false, // a bad formula shows in red in place, the rest of the cue still shows
  displayMode: false,
  strict: 'ignore', // KaTeX's "strict" warnings go to the console; a cue is not ours to fix
  trust: false, // no \href, \url or \htmlClass from a media file
  maxExpand: 1000,
};

/// Splits "a $$x^2$$ b" into [{text: "a "}, {math: "x^2"}, {text: " b"}]. An unpaired
/// `$$` stays in the text as written.
export function splitMath(text) {
  const parts = [];
  let rest = text;
  for (;;) {
    const open = rest.indexOf('$$');
    const close = open < 0 ? -1 : rest.indexOf('$$', open + 2);
    if (close < 0) break;
    if (open > 0) parts.push({ text: rest.slice(0, open) });
    parts.push({ math: rest.slice(open + 2, close) });
    rest = rest.slice(close + 2);
  }
  if (rest) parts.push({ text: rest });
  return parts;
}

/// Renders `text` (or nothing for null) into `container`, replacing what was there.
export function renderCue(container, text) {
  const nodes = [];
  for (const part of text ? splitMath(text) : []) {
    if ('text' in part) {
      nodes.push(document.createTextNode(part.text));
      continue;
    }
    const span = document.createElement('span');
    span.className = 'cue-math';
    const { katex } = globalThis;
    try {
      katex.render(part.math, span, katexOptions);
    } catch {
      // KaTeX did not load, or failed on something worse than a parse error: show the
      // TeX source rather than nothing.
      span.textContent = `$$${part.math}$$`;
    }
    nodes.push(span);
  }
  container.replaceChildren(...nodes);
}
