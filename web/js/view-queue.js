// The queue: its items with the one playing highlighted, previous and next, whether it
// loops (and a switch for it: PATCH /v1/queue), and clearing it. The queue itself is set
// through the API (PUT /v1/queue); this view follows the snapshot's `queue` and `queue`
// events.

import { $, isBusy, setAttr, setDisabled, setHidden, setText, whileBusy } from './dom.js';

/// The last path segment of a URI, for a short label ("/srv/a.mp4" -> "a.mp4").
export function itemName(uri) {
  const path = String(uri).split(/[?#]/)[0].replace(/\/+$/, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (!name || name.endsWith(':')) return String(uri); // "demo://": no path to shorten
  try {
    return decodeURIComponent(name) || uri;
  } catch {
    return name || uri;
  }
}

/// Whether the queue starts again after its last item: its own `loop`, or `repeat: "all"`
/// (the daemon loops the queue for either).
export function queueLoops(queue, repeat) {
  return Boolean(queue && (queue.loop || repeat === 'all'));
}

export function mountQueue({ actions }) {
  const summary = $('[data-field="queue-summary"]');
  const loop = $('[data-field="queue-loop"]');
  const list = $('[data-field="queue"]');
  const empty = $('[data-field="queue-empty"]');
  const previous = $('[data-action="queue-previous"]');
  const next = $('[data-action="queue-next"]');
  const clear = $('[data-action="queue-clear"]');
  const loopSwitch = $('[data-action="queue-loop"]');

  let current = null;
  // A button ignores clicks until the daemon answered the last one: a double click would
  // otherwise skip two items. The queue event that follows re-renders the list.
  const wire = (button, action) => button.addEventListener('click', () => {
    if (isBusy(button)) return;
    whileBusy(button, action()).then(() => current && render(current));
  });
  wire(previous, () => actions.queuePrevious());
  wire(next, () => actions.queueNext());
  wire(clear, () => actions.queueClear());
  // The box shows the queue's own `loop`; the `queue` event that answers sets it again.
  loopSwitch.addEventListener('change', () => {
    if (isBusy(loopSwitch)) return;
    whileBusy(loopSwitch, actions.queueLoop(loopSwitch.checked)).then(() => current && render(current));
  });

  function render(state) {
    current = state;
    const { queue, repeat } = state.player;
    const items = queue?.items ?? [];
    const index = Number.isInteger(queue?.index) ? queue.index : null;
    const loops = queueLoops(queue, repeat);
    const has = items.length > 0;

    setHidden(list, !has);
    setHidden(empty, has);
    if (!has) setText(summary, 'Empty');
    else if (index === null) setText(summary, `${items.length} item${items.length === 1 ? '' : 's'}, not started`);
    else setText(summary, `Item ${index + 1} of ${items.length}`);
    setAttr(summary, 'data-index', index === null ? null : String(index));

    let loopText = 'Stops after the last item';
    if (queue?.loop) loopText = 'Loops: starts again after the last item';
    else if (loops) loopText = 'Loops (repeat is “All”)';
    setText(loop, has ? loopText : '');
    setAttr(loop, 'data-loop', queue?.loop ? 'on' : (loops ? 'repeat' : 'off'));

    const key = JSON.stringify([items, index]);
    if (list.dataset.key !== key) {
      list.dataset.key = key;
      list.replaceChildren(...items.map((item, i) => {
        const li = document.createElement('li');
        const playing = i === index;
        li.classList.toggle('current', playing);
        if (playing) li.setAttribute('aria-current', 'true');
        li.dataset.index = String(i);
        const number = document.createElement('span');
        number.className = 'queue-number';
        number.textContent = String(i + 1);
        const name = document.createElement('span');
        name.className = 'queue-name';
        name.textContent = item.contentId ? `${itemName(item.uri)} · ${item.contentId}` : itemName(item.uri);
        name.title = item.uri;
        const tag = document.createElement('span');
        tag.className = 'ladder-tags';
        tag.textContent = playing ? 'playing' : '';
        li.append(number, name, tag);
        return li;
      }));
    }

    // "Next" at the last item of a queue that does not loop would be refused; "previous"
    // at the first item replays it (or goes round when looping).
    const atLast = index !== null && index >= items.length - 1;
    setDisabled(next, !has || (atLast && !loops));
    setDisabled(previous, !has);
    setDisabled(clear, !has);
    loopSwitch.checked = Boolean(queue?.loop);
    setDisabled(loopSwitch, !has);
  }
  return render;
}
