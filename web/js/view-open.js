// The open form: a URI with an optional subtitle file, start position and timeshift window.

import { $ } from './dom.js';

export function mountOpen({ actions }) {
  const form = $('[data-form="open"]');
  const uri = form.elements.uri;

  uri.addEventListener('input', () => uri.removeAttribute('aria-invalid'));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { uri: String(data.get('uri') ?? '').trim() };
    if (!body.uri) {
      uri.setAttribute('aria-invalid', 'true');
      uri.focus();
      return;
    }
    const subtitle = String(data.get('subtitle') ?? '').trim();
    if (subtitle) body.subtitle = subtitle;
    const start = String(data.get('start') ?? '').trim();
    if (start !== '' && Number.isFinite(Number(start))) body.start = Number(start);
    const window = String(data.get('timeshift') ?? '').trim();
    if (window !== '' && Number(window) > 0) body.timeshift = { window: Number(window) };

    form.setAttribute('aria-busy', 'true');
    try {
      await actions.open(body);
    } finally {
      form.removeAttribute('aria-busy');
    }
  });
}
