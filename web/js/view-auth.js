// The token form, shown when the daemon answers 401. A <dialog> rather than prompt():
// it can say why it is asking again, takes a password field, and does not block the page.

import { $, setText } from './dom.js';

export function mountAuth() {
  const dialog = $('[data-field="auth"]');
  const form = $('[data-form="auth"]');
  const message = $('[data-field="auth-message"]');
  const input = form.elements.token;

  // Escape would close the dialog and leave the page waiting for a token forever.
  dialog.addEventListener('cancel', (event) => event.preventDefault());

  /// Resolves with the token the viewer enters.
  return function ask(rejected) {
    setText(message, rejected
      ? 'The daemon refused that token. Check it and try again.'
      : 'This daemon needs an access token. It is kept for this browser tab only.');
    input.value = '';
    return new Promise((resolve) => {
      const onSubmit = (event) => {
        event.preventDefault();
        const token = input.value.trim();
        if (!token) {
          input.focus();
          return;
        }
        form.removeEventListener('submit', onSubmit);
        dialog.close();
        resolve(token);
      };
      form.addEventListener('submit', onSubmit);
      if (!dialog.open) dialog.showModal();
      input.focus();
    });
  };
}
