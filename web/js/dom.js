// Small DOM helpers shared by the views. Views render on every state change, so each
// setter writes only when the value differs: that keeps the DOM quiet (no layout work,
// no screen-reader chatter from aria-live regions) while position events stream in.

export function $(selector, root = document) {
  const el = root.querySelector(selector);
  if (!el) throw new Error(`dashboard markup lacks ${selector}`);
  return el;
}

export function $$(selector, root = document) {
  return Array.from(root.querySelectorAll(selector));
}

export function setText(el, text) {
  const value = text ?? '';
  if (el.textContent !== value) el.textContent = value;
}

export function setHidden(el, hidden) {
  if (el.hidden !== hidden) el.hidden = hidden;
}

export function setAttr(el, name, value) {
  if (value === null || value === undefined) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== String(value)) {
    el.setAttribute(name, String(value));
  }
}

export function setDisabled(el, disabled) {
  if (el.disabled !== disabled) el.disabled = disabled;
}

/// Marks `el` as waiting for the daemon while `promise` runs: its value is the viewer's
/// choice, and renders leave it alone until the answer is in (otherwise a position event
/// arriving first would flick it back to the old value for a moment).
export function whileBusy(el, promise) {
  const count = Number(el.dataset.busy ?? 0) + 1;
  el.dataset.busy = String(count);
  return Promise.resolve(promise).finally(() => {
    const left = Number(el.dataset.busy) - 1;
    if (left > 0) el.dataset.busy = String(left);
    else delete el.dataset.busy;
  });
}

export function isBusy(el) {
  return el.dataset.busy !== undefined;
}

/// Sets a control's value unless the viewer is using it (typing in it, or waiting for the
/// daemon to answer a change).
export function setValue(el, value) {
  if (isBusy(el) || (document.activeElement === el && el.tagName === 'INPUT' && el.type !== 'range')) return;
  if (el.value !== value) el.value = value;
}

/// Replaces a <select>'s options only when the list itself changed, so an open picker is
/// not rebuilt under the user's finger by an unrelated event; then selects `value`.
export function syncOptions(select, options, value) {
  const key = JSON.stringify(options);
  if (select.dataset.optionsKey !== key) {
    select.replaceChildren(...options.map(({ value: v, label }) => {
      const option = document.createElement('option');
      option.value = v;
      option.textContent = label;
      return option;
    }));
    select.dataset.optionsKey = key;
  }
  setValue(select, value);
}

/// True when keystrokes belong to a text field rather than to the page's shortcuts.
export function isTyping(target) {
  if (!(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  // Buttons-as-inputs and checkboxes take no text: shortcuts still make sense there,
  // but range inputs use the arrow keys themselves.
  const type = target.type;
  return !['button', 'submit', 'reset', 'checkbox', 'radio'].includes(type);
}
